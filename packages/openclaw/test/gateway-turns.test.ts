// A gateway session under OpenClaw's call sequence with LCM (the long real-OpenClaw scenario, traced): after
// a commit OpenClaw may call `compact`, whose view comes from LCM's store; a later turn's list is that view
// plus what the host added since, its tail a turn LCM stored through the commit. Each turn is stored once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { OcAgentMessage } from "../src/index.js";
import { assistant, user } from "./fixtures.js";
import { loadLcmPlugin, storedRows } from "./lcm-store.js";
import { openclawTurn } from "./openclaw-protocol.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const prompt = (i: number) => `Remember fact-${i}. Background for turn ${i}: ${"the harbour master logged the tides, the ferries and the weather for the day ".repeat(120)}`;

describe("a gateway session with compactions between turns (SQLite, 24k window)", () => {
  it("stores every turn once, also the turn committed after the last compaction's view", async () => {
    const agentDir = mkdtempSync(join(tmpdir(), "oc-gw-"));
    dirs.push(agentDir);
    const config = {};
    const oc = await loadLcmPlugin(config, agentDir);
    const shape = { sessionId: "gw-1", window: 24_000, firstBudget: 5_800 };
    const ids = { sessionId: shape.sessionId, sessionKey: `agent:main:${shape.sessionId}` };
    let history: OcAgentMessage[] = [];
    const TURNS = 9;
    const seen: string[][] = [];
    for (let i = 0; i < TURNS; i++) {
      const turn = [user(prompt(i), i * 10), assistant(`Noted fact-${i}.`, [], i * 10 + 1)];
      const { first } = await openclawTurn(oc, shape, history, prompt(i), turn, `k${i}`);
      seen.push(first.messages.map((m) => JSON.stringify((m as { content?: unknown }).content)));
      history = [...history, ...turn];
      // OpenClaw compacts between some turns (preflight, `sessions compact`); not after the last two.
      if (i < TURNS - 3) await oc.compact({ ...ids, sessionFile: "", tokenBudget: shape.window, runtimeContext: { forceReason: "manual" } } as never);
    }
    if (process.env.DEBUG_ROWS) console.log(JSON.stringify((await storedRows(config, join(agentDir, "context-engine-lcm"), shape.sessionId)).map((m) => `${m.role}:${JSON.stringify(m.content).slice(0, 30)}`)));
    for (const [i, list] of seen.entries()) {
      for (let j = 0; j < i; j++) expect(list.filter((t) => t.includes(`Remember fact-${j}.`)).length, `turn ${i}'s request shows turn ${j} at most once`).toBeLessThanOrEqual(1);
    }
    const rows = await storedRows(config, join(agentDir, "context-engine-lcm"), shape.sessionId);
    const users = rows.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    for (let i = 0; i < TURNS; i++) expect(users.filter((u) => u.includes(`Remember fact-${i}.`)), `turn ${i} stored once`).toHaveLength(1);
    expect(rows).toHaveLength(TURNS * 2);
  });
});
