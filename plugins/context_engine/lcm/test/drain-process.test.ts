import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("whenIdle in a process with nothing else to do", () => {
  it("keeps the process alive until the drain is done (its pauses are unref'd only while nobody waits)", { timeout: 120_000 }, async () => {
    const script = fileURLToPath(new URL("./drain-worker.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (err += String(d)));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code, err).toBe(0);
    const { frontier, threshold } = JSON.parse(out.trim()) as { frontier: number; threshold: number };
    expect(frontier).toBeLessThan(threshold);
  });
});
