import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel, EngineInitContext, Logger } from "@context-engine/core";
import type { LoadedConfig } from "./config/load.js";
import { formatConfigProblem } from "./config/problems.js";
import type { ConfigProblem } from "./config/problems.js";
import { issuesToProblems } from "./config/zod-issues.js";
import type { IssueLike } from "./config/zod-issues.js";
import { schemaKeysAt } from "./config/schema-keys.js";
import type { SafeParser } from "./instantiate.js";
import { BUILTIN_ENGINE_NAME, engineNameProblem } from "./names.js";

/** What the host knows when it asks for an engine; config section and data dir are filled in per engine. */
export interface HostContext {
  /** The model's window; default `model.context_length` or the built-in table. */
  contextLength?: number;
  /** The main model; default `model.name` / `OPENAI_MODEL`. */
  model?: string;
  /** An LLM for summaries. */
  chatModel?: ChatModel;
  logger?: Logger;
  /** The environment settings come from (a copy is handed to each engine). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Build `EngineInitContext` per engine name: the engine's own config section
 * (a copy, so an engine cannot change the config) and `<home>/data/<name>`,
 * created when the engine is constructed.
 */
export function createContextFactory(loaded: LoadedConfig, home: string, host: HostContext): (name: string) => EngineInitContext {
  return (name: string) => {
    const problem = engineNameProblem(name);
    if (problem) throw new Error(problem);
    const section = name === BUILTIN_ENGINE_NAME ? loaded.config.compression : loaded.config.engines[name];
    const dataDir = join(home, "data", name);
    mkdirSync(dataDir, { recursive: true });
    const ctx: EngineInitContext = { config: structuredClone(section ?? {}) as Record<string, unknown>, dataDir };
    if (host.contextLength !== undefined) ctx.contextLength = host.contextLength;
    if (host.model !== undefined) ctx.model = host.model;
    if (host.chatModel !== undefined) ctx.chatModel = host.chatModel;
    if (host.logger !== undefined) ctx.logger = host.logger;
    if (host.env !== undefined) ctx.env = Object.freeze({ ...host.env });
    return ctx;
  };
}

/** Problems in `engines.<name>` according to a plugin's `configSchema`, positioned in config.yaml. */
export function engineSectionProblems(loaded: LoadedConfig, name: string, schema: SafeParser): ConfigProblem[] {
  const source = loaded.source ?? { file: loaded.file, positionOf: () => null };
  const here = (message: string): ConfigProblem[] => {
    const pos = source.positionOf(["engines", name]);
    return [{ file: source.file, line: pos?.line ?? null, column: pos?.column ?? null, key: `engines.${name}`, message, severity: "error" }];
  };
  let result: ReturnType<SafeParser["safeParse"]>;
  try {
    result = schema.safeParse(loaded.config.engines[name] ?? {});
  } catch (error) {
    return here(`the engine's configSchema threw: ${(error as Error)?.message ?? String(error)}`);
  }
  if (result.success) return [];
  const issues = (result.error?.issues ?? []) as IssueLike[];
  if (issues.length === 0) return here("rejected by the engine's configSchema");
  // A zod object schema exposes its keys (nested ones too), which makes "did you mean" hints possible for typos.
  return issuesToProblems(issues, source, ["engines", name], {
    root: loaded.config.engines[name] ?? {},
    knownKeys: (path) => schemaKeysAt(schema, path),
  });
}

/** Validate `engines.<name>` with a plugin's `configSchema`; the reason carries file:line:column. */
export function createConfigValidator(loaded: LoadedConfig): (name: string, schema: SafeParser) => string | null {
  return (name, schema) => {
    const problems = engineSectionProblems(loaded, name, schema);
    return problems.length ? problems.map(formatConfigProblem).join("; ") : null;
  };
}
