import { join } from "node:path";
import { readSessions, resolveDataDir, type RecordedSession } from "@context-engine/sessions";
import { contentText, type Message } from "@context-engine/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchHistory } from "../src/search/index.js";
import { tempStore } from "./helpers.js";

/**
 * The store against the real recorded sessions in ../shared/data (skipped with
 * a notice when absent): structure round-trips exactly, re-ingestion is a
 * no-op, and words from every message are found by search.
 */
const dataDir = resolveDataDir();
const sources = [
  "agent-traces/mini-swe-agent-gemini3pro",
  "agent-traces/swe-agent-function-calling",
  "agent-traces/swe-gym-openhands/sample_raw.json",
  "agent-traces/tau-bench/gpt-4o-airline.json",
];

if (!dataDir) {
  console.warn("[lcm real-data test] shared data not found (set CONTEXT_ENGINE_DATA_DIR); skipping");
}

describe.skipIf(!dataDir)("store on real recorded sessions", () => {
  const t = tempStore({ redaction: false });
  let sessions: RecordedSession[] = [];
  beforeAll(async () => {
    for (const src of sources) sessions.push(...(await readSessions(join(dataDir!, src), { limit: 6 })));
  }, 60_000);
  afterAll(() => t.cleanup());

  it("stores every message with its structure and reads it back identically", async () => {
    expect(sessions.length).toBeGreaterThan(5);
    for (const s of sessions) {
      const conv = t.store.conversation(`${s.format}:${s.id}`);
      const r = t.store.ingest(conv.id, s.messages);
      expect(r.rejected).toEqual([]);
      expect(r.appended).toBe(s.messages.length);
      const back = t.store.getMessages(conv.id).map((m) => m.message);
      expect(back).toEqual(s.messages.map(normalise));
      expect(t.store.ingest(conv.id, s.messages).appended).toBe(0);
    }
  });

  it("finds a distinctive word of sampled messages in their conversation", async () => {
    let checked = 0;
    for (const s of sessions) {
      const conv = t.store.findConversation(`${s.format}:${s.id}`)!;
      for (const [i, m] of s.messages.entries()) {
        if (i % 7 !== 0) continue;
        const words = (contentText((m as { content?: unknown }).content) || "").match(/\b[A-Za-z][A-Za-z0-9]{7,30}\b/g);
        if (!words?.length) continue;
        const word = words[Math.floor(words.length / 2)]!;
        // Page through the hits (common words have many) until the message shows up.
        const seqs: number[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const r = await searchHistory(t.store, { query: word, conversationId: conv.id, limit: 100, sort: "recency", cursor });
          seqs.push(...r.hits.map((h) => h.seq!));
          cursor = seqs.includes(i) ? null : r.nextCursor;
        } while (cursor && ++pages < 50);
        expect(seqs).toContain(i);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});

/** What the store promises back: canonical tool calls (`type: "function"`), no undefined fields. */
function normalise(m: Message): Message {
  const x = JSON.parse(JSON.stringify(m)) as Record<string, unknown>;
  if (Array.isArray(x.tool_calls)) {
    if (x.tool_calls.length === 0) delete x.tool_calls;
    else x.tool_calls = (x.tool_calls as Array<Record<string, unknown>>).map((c) => ({ ...c, type: "function" }));
  } else if (x.tool_calls === null) delete x.tool_calls;
  if (x.name === null) delete x.name;
  if (!("content" in x)) x.content = null;
  return x as Message;
}
