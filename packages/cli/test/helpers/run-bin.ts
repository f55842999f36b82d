import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(PACKAGE_DIR, "dist", "bin.js");
export const FIXTURES = join(PACKAGE_DIR, "test", "fixtures");

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh working directory and context-engine home, so no user config or plugin leaks in. */
export function sandbox(): { cwd: string; home: string; env: Record<string, string> } {
  const base = mkdtempSync(join(tmpdir(), "ce-cli-"));
  const cwd = join(base, "work");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { cwd, home, env: { HOME: base, CONTEXT_ENGINE_HOME: home, NO_COLOR: "1" } };
}

/** Run `node dist/bin.js …` as a user would; resolves with the exit code and both streams. */
export function runBin(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number }): Promise<BinResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The user's endpoint and engine settings must not leak into the tests.
    if (v !== undefined && !k.startsWith("OPENAI_") && !k.startsWith("CONTEXT_ENGINE_") && k !== "FORCE_COLOR") env[k] = v;
  }
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`context-engine ${args.join(" ")} timed out\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
