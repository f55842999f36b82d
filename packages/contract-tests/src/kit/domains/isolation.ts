import type { ContextEngine } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, replayTurns, startSession, usageFor } from "../session.js";
import { allText, countTokens, markConversation } from "../util.js";

/** Run one whole conversation marked with `secret` through a compaction on `engine`. */
async function compactMarked(h: Harness, engine: ContextEngine, sessionId: string, secret: string) {
  const messages = markConversation(cloneMessages(fixtures.codingSession.messages), secret);
  await replayTurns(engine, messages, sessionId);
  engine.updateFromResponse(usageFor(messages));
  return engine.compress(messages, { currentTokens: countTokens(messages), sessionId });
}

export function registerIsolation(h: Harness): void {
  it("a new session on the same instance never sees the previous session's summary", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    const first = newSessionId("first");
    await startSession(h, engine, first);
    await compactMarked(h, engine, first, "FIRST-SESSION-SECRET-1618");
    await engine.onSessionEnd(first, []);
    await engine.onSessionReset();
    const second = newSessionId("second");
    await startSession(h, engine, second);
    const out = await compactMarked(h, engine, second, "SECOND-SESSION-SECRET-1414");
    expect(allText(out).includes("FIRST-SESSION-SECRET-1618"), "the second session's compaction contains text of the first session: clear per-session state (e.g. the previous summary) in onSessionReset/onSessionStart").toBe(false);
  }, h.timeout);

  it("a new instance never sees another instance's summary", async () => {
    const a = await h.create({ contextLength: h.compactionContextLength });
    const sa = newSessionId("inst-a");
    await startSession(h, a, sa);
    await compactMarked(h, a, sa, "INSTANCE-A-SECRET-2236");
    const b = await h.create({ contextLength: h.compactionContextLength });
    const sb = newSessionId("inst-b");
    await startSession(h, b, sb);
    const out = await compactMarked(h, b, sb, "INSTANCE-B-SECRET-1732");
    expect(allText(out).includes("INSTANCE-A-SECRET-2236"), "a fresh instance's compaction contains text another instance summarised: keep summaries on the instance, keyed by session, never in module-level or static state").toBe(false);
  }, h.timeout);
}
