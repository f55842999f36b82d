import type { Readable } from "node:stream";

/** A writable text sink (process.stdout/stderr or a test buffer). */
export interface TextSink {
  write(text: string): unknown;
  /** True when a person watches it live: enables colour, progress bars and the chat prompt. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/**
 * Everything a command touches in the outside world. Data goes to `stdout`,
 * logs, progress and errors to `stderr`, so `--json > file` stays clean.
 */
export interface CliIO {
  stdout: TextSink;
  stderr: TextSink;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Whether to colour a sink: a TTY, unless NO_COLOR is set; FORCE_COLOR forces it. */
export function useColor(sink: TextSink, env: CliIO["env"]): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return sink.isTTY === true && env.TERM !== "dumb";
}
