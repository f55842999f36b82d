/**
 * Exit codes, one per error class, so scripts can tell a typo from a broken
 * config from a bug without parsing messages.
 */
export const EXIT = Object.freeze({
  ok: 0,
  /** A bug or an unexpected failure inside the CLI or an engine. */
  internal: 1,
  /** Bad command line: unknown command or option, missing or malformed value, unknown engine name. */
  usage: 2,
  /** config.yaml (or a plugin's manifest) is invalid, or names something that does not exist. */
  config: 3,
  /** An input file is missing, unreadable or not a recognised session format. */
  input: 4,
  /** No model endpoint configured, or the endpoint failed (auth, network, …). */
  endpoint: 5,
  /** A replay ran but a check failed: a request over budget, a lost message, an engine error. */
  check: 6,
  /** Interrupted by the user (Ctrl-C). */
  interrupted: 130,
});

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as a plain message (no stack) with a chosen exit code. */
export class CliError extends Error {
  override name = "CliError";
  readonly exitCode: ExitCode;
  /** Extra lines printed after the message (what to do next). */
  readonly hints: readonly string[];
  constructor(message: string, exitCode: ExitCode, options?: { hints?: readonly string[]; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
    this.hints = options?.hints ?? [];
  }
}

export class UsageError extends CliError {
  override name = "UsageError";
  constructor(message: string, options?: { hints?: readonly string[]; cause?: unknown }) {
    super(message, EXIT.usage, options);
  }
}

export class ConfigError extends CliError {
  override name = "ConfigError";
  constructor(message: string, options?: { hints?: readonly string[]; cause?: unknown }) {
    super(message, EXIT.config, options);
  }
}

export class InputError extends CliError {
  override name = "InputError";
  constructor(message: string, options?: { hints?: readonly string[]; cause?: unknown }) {
    super(message, EXIT.input, options);
  }
}

export class EndpointError extends CliError {
  override name = "EndpointError";
  constructor(message: string, options?: { hints?: readonly string[]; cause?: unknown }) {
    super(message, EXIT.endpoint, options);
  }
}

export class CheckFailedError extends CliError {
  override name = "CheckFailedError";
  constructor(message: string, options?: { hints?: readonly string[]; cause?: unknown }) {
    super(message, EXIT.check, options);
  }
}

export function isCliError(value: unknown): value is CliError {
  return (
    value instanceof CliError ||
    (value instanceof Error && typeof (value as { exitCode?: unknown }).exitCode === "number" && Array.isArray((value as { hints?: unknown }).hints))
  );
}
