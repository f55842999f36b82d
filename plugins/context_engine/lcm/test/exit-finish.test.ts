import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runScript } from "./engine-helpers.js";

// engine/exit-finish.ts in a real process that calls process.exit(): every finisher still registered runs, each on
// its own, so one session's failure at exit never keeps another session's backlog from being stored.

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

describe("finishers run when the process exits", () => {
  it("every registered one, past one that throws; a released one never", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-exit-"));
    dirs.push(dir);
    const out = join(dir, "ran.txt");
    const { code, err } = await runScript(new URL("./exit-finish-worker.ts", import.meta.url), { LCM_EXIT_OUT: out });
    expect(code, err).toBe(0);
    expect(readFileSync(out, "utf8").split("\n").filter(Boolean)).toEqual(["second", "third"]);
  });
});
