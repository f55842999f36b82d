import { describeError as coreDescribeError, redactSecrets } from "@context-engine/core";
import type { ConfigProblem } from "./config/problems.js";
import { formatConfigProblem } from "./config/problems.js";

export type EngineLoadErrorKind =
  /** The requested name is not an identifier (it could escape the plugins directory). */
  | "invalid_name"
  /** No engine of that name was found anywhere. */
  | "unknown_engine"
  /** The engine was found but cannot be loaded (bad plugin.yaml, import, export, name, constructor, config). */
  | "broken_plugin"
  /** The built-in compressor itself could not be created. */
  | "builtin_failed";

/** Why the engine the user asked for cannot be used. The host should show `message` as is. */
export class EngineLoadError extends Error {
  override readonly name = "EngineLoadError";
  readonly kind: EngineLoadErrorKind;
  /** The engine name that was requested. */
  readonly engine: string;
  /** Engines that could be selected instead (names of loadable engines). */
  readonly available: string[];
  /** The short reason, without the surrounding sentence. */
  readonly reason: string;
  constructor(
    kind: EngineLoadErrorKind,
    engine: string,
    reason: string,
    options: { available?: string[]; cause?: unknown } = {},
  ) {
    const available = options.available ?? [];
    const list = available.length ? `; available engines: ${available.join(", ")}` : "";
    // A plugin's own error text may hold a token or a URL password: never shown in clear.
    super(`cannot load context engine "${engine}": ${redactSecrets(reason)}${list}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.engine = engine;
    this.available = available;
    this.reason = redactSecrets(reason);
  }

  static is(value: unknown): value is EngineLoadError {
    return value instanceof EngineLoadError || (value instanceof Error && value.name === "EngineLoadError");
  }
}

/** config.yaml is unreadable or invalid. `problems` lists every problem with its position. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly file: string | null;
  readonly problems: ConfigProblem[];
  constructor(file: string | null, problems: ConfigProblem[]) {
    const errors = problems.filter((p) => p.severity === "error");
    const shown = (errors.length ? errors : problems).map(formatConfigProblem);
    super(`invalid config${file ? ` ${file}` : ""}:\n  ${shown.join("\n  ")}`);
    this.file = file;
    this.problems = problems;
  }

  static is(value: unknown): value is ConfigError {
    return value instanceof ConfigError || (value instanceof Error && value.name === "ConfigError");
  }
}

/** Core's `describeError`, cut to its first line (loader messages are one line each), secrets redacted. */
export function describeError(error: unknown): string {
  return redactSecrets(coreDescribeError(error).split("\n")[0] || (error instanceof Error ? error.name : "error"));
}
