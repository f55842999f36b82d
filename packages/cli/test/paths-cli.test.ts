import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin, sandbox } from "./helpers/run-bin.js";

describe("a wrong CONTEXT_ENGINE_HOME or config.yaml is one clear message (built binary)", () => {
  it("a home that is a file, under a file, a device or in /proc is refused before the command runs", async () => {
    const s = sandbox();
    const file = join(s.cwd, "a-file");
    writeFileSync(file, "x");
    const cases: Array<[string, RegExp]> = [
      [file, /is a file, not a folder/],
      [join(file, "sub"), /a part of the path is a file, not a folder/],
      ["/dev/null", /is a device or special file, not a folder/],
      ["/proc/self", /is a system folder \(proc\)/],
    ];
    for (const [home, message] of cases) {
      for (const command of [["chat", "--list"], ["plugins", "list"]]) {
        const r = await runBin(command, { cwd: s.cwd, env: { ...s.env, CONTEXT_ENGINE_HOME: home }, timeoutMs: 20_000 });
        expect(r.code, `${home} ${command.join(" ")}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toMatch(message);
        expect(r.stderr).toContain(`CONTEXT_ENGINE_HOME=${home}`);
        expect(r.stderr).not.toMatch(/ENOTDIR|This is a bug/);
      }
    }
  });

  it("a config.yaml that is a FIFO, or has a huge number of keys, is refused at once", async () => {
    const s = sandbox();
    execFileSync("mkfifo", [join(s.cwd, "config.yaml")]);
    for (const command of [["config", "check"], ["chat", "hello"]]) {
      const r = await runBin(command, { ...s, timeoutMs: 20_000 });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout + r.stderr).toContain("is not a regular file (it is a named pipe (FIFO))");
    }
    const big = sandbox();
    writeFileSync(join(big.cwd, "config.yaml"), `model:\n  name: m\n${Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`).join("\n")}\n`);
    const r = await runBin(["config", "check"], { ...big, timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout + r.stderr).toContain("has more than 2000 lines");
  });
});
