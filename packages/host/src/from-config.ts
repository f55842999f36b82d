import type { ChatModel, Logger, TokenCounter } from "@context-engine/core";
import { loadConfig, loadEngine } from "@context-engine/plugin-loader";
import type { LoadedConfig, LoadedEngine } from "@context-engine/plugin-loader";
import { hostConfigFromFile } from "./config.js";
import type { HostConfigInput } from "./config.js";
import type { HostEvent } from "./events.js";
import { AgentHost } from "./host.js";
import { createOpenAIChatModel } from "./provider/openai-chat-model.js";
import { resolveModelConfig } from "./provider/model-config.js";
import type { ResolvedModelConfig } from "./provider/model-config.js";
import type { OpenSessionOptions, Session } from "./session/session.js";
import type { ToolDefinition, ToolExecutor } from "./tools.js";

export interface HostFromConfigOptions {
  /** Where config.yaml is looked up first; default `process.cwd()`. */
  cwd?: string;
  /** The context-engine home; default `$CONTEXT_ENGINE_HOME`, else `~/.context-engine`. */
  home?: string;
  /** An explicit config file. */
  configPath?: string;
  env?: Record<string, string | undefined>;
  /** Use this engine instead of `context.engine` (a `--engine` flag). */
  engine?: string;
  /** The model for the agent (and the engine's summaries); default: `createOpenAIChatModel` from `model.*`. */
  chatModel?: ChatModel;
  tools?: readonly ToolDefinition[];
  executeTool?: ToolExecutor;
  /** Overrides on top of the config file's host settings. */
  hostConfig?: HostConfigInput;
  logger?: Logger;
  onEvent?: (event: HostEvent) => void;
  tokenCounter?: TokenCounter;
}

export interface HostFromConfig {
  host: AgentHost;
  /** The active engine and how it was chosen. */
  loaded: LoadedEngine;
  config: LoadedConfig;
  model: ResolvedModelConfig;
  /** Open a session with the configured model, window and provider. */
  openSession(options?: Partial<OpenSessionOptions>): Promise<Session>;
}

/**
 * Everything from config.yaml in one call: the config, the main model
 * (`model.*` with the OPENAI_* fallbacks), the active engine (built with that
 * model for its summaries) and a host with the `compression` timeout and
 * `model_thresholds`.
 */
export async function createHostFromConfig(options: HostFromConfigOptions = {}): Promise<HostFromConfig> {
  const env = options.env ?? process.env;
  const config = await loadConfig({
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.home !== undefined ? { home: options.home } : {}),
    ...(options.configPath !== undefined ? { path: options.configPath } : {}),
    env,
  });
  const source = config.file ?? "config.yaml";
  const model = resolveModelConfig(config.config.model, env, source);
  let chatModel = options.chatModel;
  if (!chatModel) {
    if (!model.apiKey) {
      throw new TypeError(`${source}: no API key for ${model.model}: set OPENAI_API_KEY (or model.api_key in ${source})`);
    }
    chatModel = createOpenAIChatModel({ model: model.model, apiKey: model.apiKey, timeoutMs: model.requestTimeoutMs, ...(model.baseURL ? { baseURL: model.baseURL } : {}) });
  }
  const loaded = await loadEngine(
    config,
    { contextLength: model.contextLength, model: model.model, chatModel, ...(options.logger ? { logger: options.logger } : {}) },
    {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.engine !== undefined ? { engine: options.engine } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      env,
    },
  );
  const host = new AgentHost({
    engine: loaded.engine,
    ...(loaded.createEngine ? { engineFactory: loaded.createEngine, engineContext: loaded.initContext } : {}),
    chatModel,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.executeTool ? { executeTool: options.executeTool } : {}),
    config: { ...hostConfigFromFile(config.config, source), ...options.hostConfig },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.tokenCounter ? { tokenCounter: options.tokenCounter } : {}),
  });
  return {
    host,
    loaded,
    config,
    model,
    openSession: (overrides = {}) =>
      host.openSession({
        model: model.model,
        contextLength: model.contextLength,
        ...(model.provider ? { provider: model.provider } : {}),
        ...(model.baseURL ? { baseUrl: model.baseURL } : {}),
        ...(loaded.initContext.dataDir ? { dataDir: loaded.initContext.dataDir } : {}),
        ...overrides,
      }),
  };
}
