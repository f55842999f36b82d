import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exportConversation, openLcmStore } from "@context-engine/lcm";
import { describe, expect, it } from "vitest";
import { runBin, sandbox } from "./helpers/run-bin.js";

describe("context-engine lcm export|import (built binary)", () => {
  it("moves a conversation to another store losslessly and refuses to overwrite one", async () => {
    const s = sandbox();
    const from = join(s.cwd, "a.sqlite");
    const seed = openLcmStore({ path: from });
    const conv = seed.conversation("s1");
    seed.ingest(conv.id, [
      { role: "system", content: "sys" },
      { role: "user", content: "hello" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "a.ts" },
    ]);
    const original = await exportConversation(seed, "s1");
    seed.close();

    const out = await runBin(["lcm", "export", "--session", "s1", "--store", from, "--out", "s1.json"], s);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain("exported 4 messages and 0 summaries of s1");
    expect(JSON.parse(readFileSync(join(s.cwd, "s1.json"), "utf8"))).toEqual(original);

    const imported = await runBin(["lcm", "import", "s1.json", "--store", "b.sqlite"], s);
    expect(imported.code, imported.stderr).toBe(0);
    const copy = openLcmStore({ path: join(s.cwd, "b.sqlite") });
    expect(await exportConversation(copy, "s1")).toEqual(original);
    copy.close();

    const again = await runBin(["lcm", "import", "s1.json", "--store", "b.sqlite"], s);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('session "s1" already holds 4 messages');
    const missing = await runBin(["lcm", "export", "--session", "nope", "--store", from], s);
    expect(missing.code).toBe(4);
    const usage = await runBin(["lcm", "frobnicate"], s);
    expect(usage.code).toBe(2);
  });
});
