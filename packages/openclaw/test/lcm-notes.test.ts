// LCM's notes under OpenClaw's call sequence are true: OpenClaw appends the turn's own message after the
// turn-start assemble, so the history's newest user message is the previous turn's and must not be quoted
// as the request; a block without summaries announces none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { OcAgentMessage, OcAssembleResult } from "../src/index.js";
import { assistant, toolResult, user } from "./fixtures.js";
import { loadLcmPlugin, storedRows } from "./lcm-store.js";
import { openclawTurn } from "./openclaw-protocol.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const prompt = (i: number) => `turn ${i}: remember fact-${i}. ${"the harbour master logged tides and ferries for the day ".repeat(110)}`;
const turnOf = (i: number): OcAgentMessage[] => [
  user(prompt(i), i * 10),
  assistant("", [{ id: `call_${i}`, name: "note", args: { fact: `fact-${i}` } }], i * 10 + 1),
  toolResult(`call_${i}`, "note", `noted fact-${i}`, i * 10 + 2),
  assistant(`I will remember fact-${i}.`, [], i * 10 + 3),
];

/** LCM's own blocks in an assembled list (its context tag opens them). */
function notes(result: OcAssembleResult): string[] {
  const out: string[] = [];
  for (const m of result.messages) {
    if (m.role !== "user") continue;
    const text = typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("");
    if (text.startsWith("<lcm_context>")) out.push(text);
  }
  return out;
}

describe("LCM's notes through the adapter (SQLite, 24k window, OpenClaw's budgets)", () => {
  it("never quote an earlier turn's message as the request, and announce summaries only over summaries", async () => {
    const agentDir = mkdtempSync(join(tmpdir(), "oc-notes-"));
    dirs.push(agentDir);
    const config = { fresh_tail_count: 8, leaf_min_messages: 2, leaf_chunk_tokens: 2_000 };
    const oc = await loadLcmPlugin(config, agentDir);
    const shape = { sessionId: "notes-1", window: 24_000, firstBudget: 8_800 };
    let history: OcAgentMessage[] = [];
    let seenNotes = 0;
    for (let i = 0; i < 9; i++) {
      const turn = turnOf(i);
      const { first, steps } = await openclawTurn(oc, shape, history, prompt(i), turn, `k${i}`);
      for (const note of [...notes(first), ...steps.flatMap(notes)]) {
        seenNotes++;
        expect(note).not.toContain("latest request");
        if (note.includes("summaries below")) expect(note).toContain("<summary ");
        // A quote is of a request made at that point; at the turn start OpenClaw sends the turn's own after the list.
        for (let earlier = 0; earlier < i; earlier++) {
          if (!note.includes(`turn ${earlier}: remember`)) continue;
          expect(note, `turn ${i} quotes turn ${earlier}`).not.toMatch(/quoted verbatim/);
        }
      }
      history = [...history, ...turn];
    }
    // The scenario reached the point where LCM writes notes (history far over the 8.8k turn-start budget).
    expect(seenNotes).toBeGreaterThan(0);
    const rows = await storedRows(config, join(agentDir, "context-engine-lcm"), shape.sessionId);
    const users = rows.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    for (let i = 0; i < 9; i++) expect(users.filter((u) => u.includes(`turn ${i}: remember`)), `turn ${i} stored once`).toHaveLength(1);
  });
});
