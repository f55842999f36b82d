import { describe, expect, it } from "vitest";
import { createProgress } from "../src/format/progress.js";

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { out, s: { isTTY, columns: 80, write: (t: string) => out.push(t) } };
}

describe("progress bar", () => {
  it("draws on a TTY, keeps logged lines, and clears itself", () => {
    let t = 0;
    const { out, s } = sink(true);
    const p = createProgress(s, { enabled: true, label: "replay", now: () => t });
    p.setTotal(10);
    for (let i = 0; i < 10; i++) {
      t += 100;
      p.tick(1, "lcm · demo");
    }
    p.log("replayed demo with lcm");
    p.done();
    const text = out.join("");
    expect(text).toContain("replay [");
    expect(text).toContain("10/10");
    expect(text).toContain("█".repeat(10));
    expect(text).toContain("lcm · demo");
    expect(text).toContain("replayed demo with lcm\n");
    expect(text.endsWith("\r\u001b[2K")).toBe(true);
  });

  it("draws nothing on a pipe or when disabled, but still passes log lines", () => {
    for (const [isTTY, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { out, s } = sink(isTTY);
      const p = createProgress(s, { enabled });
      p.setTotal(3);
      p.tick();
      p.log("done");
      p.done();
      expect(out.join("")).toBe("done\n");
    }
  });
});
