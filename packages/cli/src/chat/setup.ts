import type { ChatModel, ContextEngine, Logger, Message } from "@context-engine/core";
import type { AgentHost, HostEvent, OpenAIChatModel, ResolvedModelConfig, Session } from "@context-engine/host";
import { ConfigError, EndpointError } from "../errors.js";
import type { CliIO } from "../io.js";
import { engineSearchPaths } from "../paths.js";
import { ENDPOINT_HINTS } from "../commands/endpoint.js";
import { ledgerRedactionOf } from "./ledger-redaction.js";
import { chatRetention, type ChatRetention } from "./retention.js";

export interface ChatSetupOptions {
  io: CliIO;
  configPath: string | undefined;
  engine: string | undefined;
  /** Set when `engine` is the one a resumed chat recorded (not a flag): its failure says so. */
  resumedFrom?: { id: string; engine: string };
  model: string | undefined;
  contextLength: number | undefined;
  systemPrompt: string | undefined;
  sessionId: string;
  history: Message[];
  /** Where the session keeps its compaction ledger (beside the transcripts); absent: in memory only. */
  ledgerDir?: string;
  /** When a history message was said (a resumed chat's transcript), so engines see those times, not now. */
  historyTime?: (message: Message) => number | null;
  /** Logs of the host itself (its events are shown instead): verbose only. */
  hostLogger: Logger;
  /** Warnings of the engine and the loader. */
  engineLogger: Logger;
  onEvent: (event: HostEvent) => void;
}

export interface ChatSetup {
  agent: AgentHost;
  session: Session;
  engine: ContextEngine;
  engineInfo: { name: string; source: string; version: string | null; fallbackReason: string | null };
  resolved: ResolvedModelConfig;
  chatModel: OpenAIChatModel;
  configFile: string;
  /** How long saved chats are kept (`chat:` in config.yaml); empty: all of them. */
  retention: ChatRetention;
  close(): Promise<void>;
}

/** Endpoint, model, engine and one session, from config.yaml, the environment and the flags. */
export async function setUpChat(o: ChatSetupOptions): Promise<ChatSetup> {
  const [{ loadConfig, loadEngine }, host] = await Promise.all([import("@context-engine/plugin-loader"), import("@context-engine/host")]);
  const env = { ...o.io.env };
  const loaded = await loadConfig({ cwd: o.io.cwd, env, ...(o.configPath ? { path: o.configPath } : {}) });
  const configFile = loaded.file ?? "config.yaml";
  const retention = chatRetention(loaded.source, configFile);
  const modelSection = { ...loaded.config.model, ...(o.model ? { name: o.model } : {}) };
  let resolved: ResolvedModelConfig;
  try {
    resolved = host.resolveModelConfig(modelSection, env, configFile);
  } catch (error) {
    throw new EndpointError(`no model endpoint configured: ${(error as Error).message.split("\n")[0]}`, { hints: ENDPOINT_HINTS });
  }
  if (!resolved.baseURL && !resolved.apiKey) {
    throw new EndpointError("no model endpoint configured: neither a base URL nor an API key is set", { hints: ENDPOINT_HINTS });
  }
  if (o.contextLength !== undefined) {
    resolved = { ...resolved, contextLength: o.contextLength, contextLengthKnown: true, sources: { ...resolved.sources, contextLength: "--context-length" } };
  }
  const chatModel = host.createOpenAIChatModel({
    model: resolved.model,
    // Local OpenAI-compatible servers ignore the key, but the client needs one.
    apiKey: resolved.apiKey ?? "not-needed",
    timeoutMs: resolved.requestTimeoutMs,
    ...(resolved.baseURL ? { baseURL: resolved.baseURL } : {}),
  });

  let l;
  try {
    l = await loadEngine(
      loaded,
      { contextLength: resolved.contextLength, model: resolved.model, chatModel: chatModel as ChatModel, logger: o.engineLogger },
      { cwd: o.io.cwd, env, logger: o.engineLogger, nodeModules: engineSearchPaths(o.io.cwd), ...(o.engine ? { engine: o.engine } : {}) },
    );
  } catch (error) {
    if (o.resumedFrom && error instanceof Error) {
      throw new ConfigError(`chat ${o.resumedFrom.id} used the ${o.resumedFrom.engine} engine, which cannot be loaded here: ${error.message}`, {
        hints: [`Continue it with another engine: --engine <name> (the saved transcript is replayed into it).`, "Run 'context-engine plugins list' to see the engines found."],
      });
    }
    // The same unknown engine is a usage error from --engine but a config error from config.yaml.
    if (!o.engine && error instanceof Error && error.name === "EngineLoadError") {
      throw new ConfigError(`${error.message} (context.engine in ${configFile})`, { hints: ["Run 'context-engine plugins list' to see the engines found."] });
    }
    throw error;
  }
  for (const w of l.warnings) o.engineLogger.warn(w);
  const engine = l.engine;

  let opening = true;
  const agent = new host.AgentHost({
    engine,
    chatModel,
    config: host.hostConfigFromFile(loaded.config, configFile),
    logger: o.hostLogger,
    onEvent: o.onEvent,
    // Only the history the session opens with: what is said from now on is stamped with the clock.
    ...(o.historyTime ? { messageTime: (m: Message) => (opening ? o.historyTime!(m) : null) } : {}),
  });
  const session = await agent.openSession({
    sessionId: o.sessionId,
    model: resolved.model,
    contextLength: resolved.contextLength,
    ...(resolved.provider ? { provider: resolved.provider } : {}),
    ...(resolved.baseURL ? { baseUrl: resolved.baseURL } : {}),
    ...(o.systemPrompt ? { systemPrompt: o.systemPrompt } : {}),
    ...(o.history.length > 0 ? { history: o.history } : {}),
    ...(o.ledgerDir ? { ledgerDir: o.ledgerDir, ledgerRedaction: ledgerRedactionOf(loaded.config.engines) } : {}),
    ...(l.initContext.dataDir ? { dataDir: l.initContext.dataDir } : {}),
    platform: "cli",
  });
  opening = false;
  return {
    agent,
    session,
    engine,
    engineInfo: { name: l.name, source: l.source, version: l.version, fallbackReason: l.fallbackReason },
    resolved,
    chatModel,
    configFile,
    retention,
    close: async () => {
      await agent.close();
      const close = (engine as { close?: unknown }).close;
      if (typeof close === "function") await Promise.resolve(close.call(engine)).catch(() => undefined);
    },
  };
}
