import { spawn } from "node:child_process";

export interface Run {
  code: number | null;
  /** stdout and stderr interleaved, for messages. */
  out: string;
  /** stdout alone, for output a test parses. */
  stdout: string;
}

/** Run a command to completion (no shell), with a deadline; the output is kept for messages. */
export function run(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}, timeoutMs = 180_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1", ...env } });
    let out = "";
    let stdout = "";
    child.stdout.on("data", (d) => {
      out += d;
      stdout += d;
    });
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, stdout });
    });
  });
}

/** Fail with the command's output when it did not exit 0. */
export async function ok(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<string> {
  const started = Date.now();
  const r = await run(cmd, args, cwd, env);
  console.info(`[e2e] ${((Date.now() - started) / 1000).toFixed(1)} s: ${cmd} ${args.join(" ").slice(0, 160)}`);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r.out;
}

/** `ok`, returning stdout alone (what a test parses); stderr is still printed on failure. */
export async function okStdout(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<string> {
  const r = await run(cmd, args, cwd, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${r.code}:\n${r.out.slice(-4000)}`);
  const stderr = r.out.length > r.stdout.length ? "(stderr present)" : "";
  if (stderr) console.info(`[e2e] ${cmd} ${args.join(" ").slice(0, 120)} wrote to stderr too:\n${r.out.slice(0, 2000)}`);
  return r.stdout;
}
