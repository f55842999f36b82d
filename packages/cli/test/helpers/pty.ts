import type { IPty } from "node-pty";
import { BIN } from "./run-bin.js";

/** The built binary in a real pseudo-terminal: what a person at a terminal would see and type. */
export interface PtySession {
  /** Everything the terminal showed so far (stdout and stderr interleaved, with escapes). */
  readonly output: string;
  /** The output without ANSI escapes and carriage returns. */
  plain(): string;
  write(data: string): void;
  /** Wait until the plain output matches (after `from` characters), or fail with what was shown. */
  waitFor(pattern: RegExp | string, options?: { timeoutMs?: number; from?: number }): Promise<void>;
  exited: Promise<number>;
  kill(): void;
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z~]|\u001b\][^\u0007]*\u0007/g;

type Spawn = typeof import("node-pty").spawn;
let spawnPty: Spawn | null = null;

/** Load node-pty (a native module); null with the reason when it did not build here. */
export async function loadPty(): Promise<string | null> {
  try {
    spawnPty = (await import("node-pty")).spawn;
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export function startPty(args: string[], options: { cwd: string; env: Record<string, string>; cols?: number; rows?: number }): PtySession {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("OPENAI_") && !k.startsWith("CONTEXT_ENGINE_") && k !== "FORCE_COLOR") env[k] = v;
  }
  Object.assign(env, { TERM: "xterm-256color" }, options.env);
  if (!spawnPty) throw new Error("call loadPty() first");
  const pty: IPty = spawnPty(process.execPath, [BIN, ...args], { name: "xterm-256color", cols: options.cols ?? 120, rows: options.rows ?? 40, cwd: options.cwd, env });
  let output = "";
  pty.onData((d) => (output += d));
  const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  const plain = () => output.replace(ANSI, "").replace(/\r/g, "");
  return {
    get output() {
      return output;
    },
    plain,
    write: (data) => pty.write(data),
    async waitFor(pattern, o = {}) {
      const deadline = Date.now() + (o.timeoutMs ?? 10_000);
      const test = (text: string) => (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text));
      while (!test(plain().slice(o.from ?? 0))) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)}; the terminal showed:\n${plain()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exited,
    kill: () => {
      try {
        pty.kill();
      } catch {
        // already gone
      }
    },
  };
}
