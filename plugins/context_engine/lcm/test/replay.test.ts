import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkConversation, contentText, defaultTokenCounter, toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { readSessions, resolveDataDir } from "@context-engine/sessions";
import type { RecordedSession } from "@context-engine/sessions";
import { LcmEngine } from "../src/index.js";
import { FakeSummarizer, tempDir } from "./engine-helpers.js";

/**
 * Replays the real recorded sessions of shared/data through the engine the
 * way a host drives it (request loop, compress over threshold, selectContext,
 * onTurnComplete), with a small window so that compaction happens many times.
 * Proves: every request is under budget and a valid tool sequence, and every
 * original message can be recovered through the engine's tools.
 */

const dataDir = resolveDataDir();
// Windows well below each session's size, so that every replay compacts repeatedly.
const sources: Array<{ path: string; limit: number; context: number }> = [
  { path: "agent-traces/mini-swe-agent-gemini3pro", limit: 10, context: 16_000 },
  { path: "agent-traces/swe-agent-function-calling", limit: 1, context: 4_000 },
  { path: "agent-traces/swe-gym-openhands/sample_raw.json", limit: 5, context: 6_000 },
  { path: "agent-traces/tau-bench/gpt-4o-airline.json", limit: 12, context: 3_000 },
  { path: "locomo/locomo7.json", limit: 1, context: 8_000 },
];

const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface ReplayReport {
  requests: number;
  compactions: number;
  maxRequestTokens: number;
  problems: string[];
}

async function replay(engine: LcmEngine, session: RecordedSession, CONTEXT: number): Promise<ReplayReport> {
  const report: ReplayReport = { requests: 0, compactions: 0, maxRequestTokens: 0, problems: [] };
  const sessionId = session.id;
  engine.onSessionStart(sessionId);
  let live: Message[] = [];
  const request = async () => {
    let tokens = defaultTokenCounter.countMessages(live);
    if (engine.shouldCompress(tokens)) {
      const out = await engine.compress(live, { sessionId, currentTokens: tokens });
      if (out !== live) report.compactions++;
      live = out;
    }
    const selected = await engine.selectContext(live, { sessionId, budgetTokens: CONTEXT });
    const sent = selected ?? live;
    tokens = defaultTokenCounter.countMessages(sent);
    report.requests++;
    report.maxRequestTokens = Math.max(report.maxRequestTokens, tokens);
    if (tokens > CONTEXT) report.problems.push(`request ${report.requests}: ${tokens} tokens > ${CONTEXT}`);
    const problems = checkConversation(sent);
    if (problems.length) report.problems.push(`request ${report.requests}: ${problems.map((p) => p.message).join("; ")}`);
  };
  for (const message of session.messages) {
    if (message.role === "assistant") await request();
    if (message.role === "user" && live.some((m) => m.role === "assistant")) {
      await engine.onTurnComplete(live, null, { sessionId });
    }
    live = [...live, message];
    engine.updateFromResponse({ prompt_tokens: defaultTokenCounter.countMessages(live), completion_tokens: 0, total_tokens: 0 });
  }
  await engine.onTurnComplete(live, null, { sessionId });
  await engine.whenIdle(sessionId);
  return report;
}

interface Recovered {
  role: string;
  content: string;
  toolCalls: string;
  toolCallId: string | null;
}

function fingerprint(m: Message): string {
  const calls = toolCallsOf(m).map((c) => `${c.id}|${c.function.name}|${c.function.arguments}`).join("\n");
  const id = (m as { tool_call_id?: string }).tool_call_id ?? null;
  return JSON.stringify([m.role, contentText(m.content ?? ""), calls, id]);
}

/**
 * Recover the conversation through the tools only: lcm_expand every summary
 * (reading on with the cursor), and lcm_expand every message still in the
 * active context. Returns the recovered messages by seq.
 */
async function recoverThroughTools(engine: LcmEngine, sessionId: string): Promise<Map<number, Recovered>> {
  const found = new Map<number, Recovered>();
  const conv = (await engine.store.findConversation(sessionId))!;
  const read = async (id: string) => {
    let cursor: string | undefined;
    for (let page = 0; page < 100_000; page++) {
      const raw = await engine.handleToolCall("lcm_expand", { id, max_tokens: 50_000, ...(cursor ? { cursor } : {}) }, { sessionId });
      const res = JSON.parse(raw) as {
        messages?: Array<{ seq: number; role: string; content?: string; tool_calls?: Array<{ id: string; name: string; arguments: string }>; tool_call_id?: string; part?: { from: number } }>;
        nextCursor?: string | null;
        error?: string;
      };
      if (res.error) throw new Error(res.error);
      for (const m of res.messages ?? []) {
        const prev = found.get(m.seq);
        const calls = (m.tool_calls ?? []).map((c) => `${c.id}|${c.name}|${c.arguments}`).join("\n");
        if (m.part && m.part.from > 0 && prev) prev.content += m.content ?? "";
        else found.set(m.seq, { role: m.role, content: m.content ?? "", toolCalls: calls, toolCallId: m.tool_call_id ?? null });
      }
      if (!res.nextCursor) break;
      cursor = res.nextCursor;
    }
  };
  for (const summary of (await engine.store.listSummaries(conv.id))) await read(summary.id);
  for (const item of (await engine.store.getFrontier(conv.id)).items) {
    if (item.kind === "message") await read(`msg_${item.messageId}`);
  }
  return found;
}

describe.skipIf(!dataDir)("replay of the real sessions in shared/data", () => {
  if (!dataDir) {
    it.skip("shared/data not found (set CONTEXT_ENGINE_DATA_DIR): replay skipped", () => {});
    return;
  }
  for (const src of sources) {
    it(`${src.path}: under budget, no orphan tool pair, 100% recoverable`, async () => {
      const sessions = await readSessions(join(dataDir, src.path), { limit: src.limit });
      expect(sessions.length).toBeGreaterThan(0);
      const engine = new LcmEngine({
        dataDir: join(tmp.dir, src.path.replace(/\W+/g, "_")),
        contextLength: src.context,
        chatModel: new FakeSummarizer(),
        config: { redaction: { enabled: false } },
      });
      try {
        let compactions = 0;
        let requests = 0;
        let peak = 0;
        let messages = 0;
        for (const session of sessions) {
          const report = await replay(engine, session, src.context);
          expect(report.problems).toEqual([]);
          compactions += report.compactions;
          requests += report.requests;
          peak = Math.max(peak, report.maxRequestTokens);
          const conv = (await engine.store.findConversation(session.id))!;
          const originals = session.messages.filter((m) => m.role !== "system" && m.role !== "developer");
          expect(conv.messageCount).toBe(originals.length);
          const recovered = await recoverThroughTools(engine, session.id);
          const missing = originals.filter((m, seq) => {
            const r = recovered.get(seq);
            return !r || JSON.stringify([r.role, r.content, r.toolCalls, r.toolCallId]) !== fingerprint(m);
          });
          expect(missing.length, `${session.id}: ${missing.length} of ${originals.length} not recoverable`).toBe(0);
          messages += originals.length;
        }
        console.info(
          `[lcm replay] ${src.path}: ${sessions.length} sessions, ${messages} messages recovered 100% through lcm_expand, ` +
            `${requests} requests (peak ${peak} / ${src.context} tokens), ${compactions} compactions, no invalid tool sequence`,
        );
        expect(compactions).toBeGreaterThan(0);
      } finally {
        engine.close();
      }
    }, 120_000);
  }
});
