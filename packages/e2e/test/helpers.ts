import { spawn } from "node:child_process";

export interface Run {
  code: number | null;
  out: string;
}

/** Run a command to completion (no shell), with a deadline; the output is kept for messages. */
export function run(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}, timeoutMs = 180_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1", ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
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
