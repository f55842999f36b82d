import type { ChatModel, Message } from "@context-engine/core";
import { checkConversation, contentText, createEstimator } from "@context-engine/core";
import type { RecordedSession } from "@context-engine/sessions";
import { readSessions, resolveDataDir, splitSession } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import { ContextCompressor } from "../src/index.js";
import { fakeSummariser } from "./helpers.js";

/**
 * Replays the real recorded sessions in shared/data turn by turn through the
 * compressor with a deliberately small window. Before every provider request
 * (each recorded assistant message stands in for the model's answer) the
 * host logic runs: preflight / threshold check → compress. Every request must
 * be under the window, a valid conversation, and still carry the turn's user
 * request verbatim.
 */
const dataDir = resolveDataDir();
const counter = createEstimator();

if (!dataDir) {
  console.warn("[compressor replay] shared/data not found (set CONTEXT_ENGINE_DATA_DIR): replay tests are skipped");
}

interface ReplayStats {
  requests: number;
  compactions: number;
  maxRequestTokens: number;
}

async function replay(session: RecordedSession, window: number, chatModel?: ChatModel): Promise<ReplayStats> {
  const engine = new ContextCompressor({ contextLength: window, model: "replay-model", ...(chatModel ? { chatModel } : {}) });
  const sessionId = session.id;
  engine.onSessionStart(sessionId);
  const { preamble, turns } = splitSession(session.messages);
  let transcript: Message[] = [...preamble];
  const stats: ReplayStats = { requests: 0, compactions: 0, maxRequestTokens: 0 };

  const request = async (userText: string, where: string) => {
    let tokens = counter.countMessages(transcript);
    if (engine.shouldCompressPreflight(transcript) || engine.shouldCompress(tokens)) {
      const next = await engine.compress(transcript, { currentTokens: tokens, sessionId });
      if (next !== transcript) stats.compactions++;
      transcript = next;
      tokens = counter.countMessages(transcript);
    }
    stats.requests++;
    stats.maxRequestTokens = Math.max(stats.maxRequestTokens, tokens);
    expect(tokens, `${where}: request of ${tokens} tokens exceeds the ${window}-token window`).toBeLessThan(window);
    const problems = checkConversation(transcript);
    expect(problems, `${where}: ${problems.map((p) => p.message).join("; ")}`).toEqual([]);
    if (userText) {
      const all = transcript.map((m) => contentText(m.content)).join("\n");
      expect(all.includes(userText), `${where}: the latest user request was lost`).toBe(true);
    }
    engine.updateFromResponse({ prompt_tokens: tokens, completion_tokens: 50, total_tokens: tokens + 50 });
  };

  for (const [t, turn] of turns.entries()) {
    transcript = [...transcript, turn.user];
    const userText = contentText(turn.user.content);
    let requested = false;
    for (const step of turn.steps) {
      if (step.role === "assistant") {
        await request(userText, `${session.id} turn ${t} request ${stats.requests}`);
        requested = true;
      }
      transcript = [...transcript, step];
    }
    if (!requested) await request(userText, `${session.id} turn ${t} (unanswered)`);
  }
  engine.onSessionEnd(sessionId, transcript);
  return stats;
}

describe.skipIf(!dataDir)("replay of the real sessions in shared/data", () => {
  it("mini-swe-agent coding sessions (16k window, extractive summaries)", async () => {
    const sessions = await readSessions(`${dataDir}/agent-traces/mini-swe-agent-gemini3pro`);
    expect(sessions.length).toBeGreaterThan(0);
    let compactions = 0;
    for (const s of sessions) compactions += (await replay(s, 16_000)).compactions;
    expect(compactions).toBeGreaterThan(sessions.length);
  });

  it("mini-swe-agent coding sessions (16k window, model summaries)", async () => {
    const sessions = await readSessions(`${dataDir}/agent-traces/mini-swe-agent-gemini3pro`, { limit: 3 });
    for (const s of sessions) {
      const model = fakeSummariser();
      const stats = await replay(s, 16_000, model);
      expect(model.requests.length).toBeGreaterThan(0);
      expect(stats.compactions).toBeGreaterThan(0);
    }
  });

  it("OpenHands and SWE-agent sessions with parallel tool calls (8k window)", async () => {
    const sessions = [
      ...(await readSessions(`${dataDir}/agent-traces/swe-gym-openhands`)),
      ...(await readSessions(`${dataDir}/agent-traces/swe-agent-function-calling`)),
    ];
    let compactions = 0;
    for (const s of sessions) {
      compactions += (await replay(s, 8_000)).compactions;
      compactions += (await replay(s, 8_000, fakeSummariser())).compactions;
    }
    expect(compactions).toBeGreaterThan(0);
  });

  it("tau-bench airline sessions (6k window, long system prompt)", async () => {
    const all = await readSessions(`${dataDir}/agent-traces/tau-bench`);
    // The longest sessions exercise compaction; every 10th keeps the run short.
    const sessions = all.filter((s, i) => s.messages.length >= 40 || i % 10 === 0);
    let compactions = 0;
    for (const s of sessions) compactions += (await replay(s, 6_000)).compactions;
    expect(compactions).toBeGreaterThan(0);
  });

  it("LoCoMo long chats (4k window, many compactions)", async () => {
    const sessions = await readSessions(`${dataDir}/locomo`, { limit: 2 });
    for (const s of sessions) {
      const stats = await replay(s, 4_000);
      expect(stats.compactions).toBeGreaterThan(3);
    }
  });
});
