import type { ChatModel } from "./chat-model.js";

/** Minimal structured logger; hosts adapt theirs to it. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** A logger that drops everything. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

/** A logger that writes warnings and errors to stderr (stdout stays for data). */
export function createStderrLogger(prefix = "context-engine", level: "debug" | "info" | "warn" | "error" = "warn"): Logger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 } as const;
  const emit = (lvl: keyof typeof order) => (message: string, data?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    const suffix = data && Object.keys(data).length ? ` ${JSON.stringify(data)}` : "";
    process.stderr.write(`[${prefix}] ${lvl}: ${message}${suffix}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/**
 * What a host hands an engine at construction. Engines are constructed as
 * `new Engine(context)`; every field may be absent when an engine is built by
 * hand, so engines must apply their own defaults.
 */
export interface EngineInitContext {
  /** The model's context window in tokens (0 when not known yet; `updateModel` follows). */
  contextLength?: number;
  /** The model name, when known. */
  model?: string;
  /**
   * The engine's own config section, as written in config.yaml (snake_case
   * keys). For the built-in compressor this is the `compression` block; for
   * plugin engines `engines.<name>`. Engines validate it themselves.
   */
  config?: Record<string, unknown>;
  /** An LLM for summaries; absent when none is configured (engines must cope). */
  chatModel?: ChatModel;
  /** A directory the engine may write its files to. */
  dataDir?: string;
  logger?: Logger;
  /**
   * The environment the host reads its settings from (the `env` given to the loader or host, else
   * `process.env`): an engine that reads a variable its config names (`store_env`) reads it here.
   */
  env?: Readonly<Record<string, string | undefined>>;
}
