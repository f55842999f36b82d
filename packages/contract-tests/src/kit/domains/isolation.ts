import type { ContextEngine } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, replayTurns, startSession, usageFor } from "../session.js";
import { allText, countTokens, markConversation } from "../util.js";
import { registerOpenIsolation } from "./isolation-open.js";

/** Run one whole conversation marked with `secret` through a compaction on `engine`. */
async function compactMarked(h: Harness, engine: ContextEngine, sessionId: string, secret: string) {
  const messages = markConversation(cloneMessages(fixtures.codingSession.messages), secret);
  await replayTurns(engine, messages, sessionId);
  engine.updateFromResponse(usageFor(messages));
  return engine.compress(messages, { currentTokens: countTokens(messages), sessionId });
}

export function registerIsolation(h: Harness): void {
  registerOpenIsolation(h);
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

  it("a session's pass never sees another open session's pass, whatever the order", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.concurrentSessions) return ctx.skip("the engine serves one session per instance");
    // A gateway keeps both sessions open; their passes come one after the other, with no reset between.
    const engine = await h.create({ contextLength: h.compactionContextLength });
    const a = newSessionId("open-a");
    const b = newSessionId("open-b");
    await startSession(h, engine, a);
    await startSession(h, engine, b);
    await compactMarked(h, engine, a, "OPEN-A-SECRET-2653");
    const outB = await compactMarked(h, engine, b, "OPEN-B-SECRET-5897");
    expect(allText(outB).includes("OPEN-A-SECRET-2653"), "session B's pass contains text of session A's earlier pass (both sessions open): keep per-conversation state such as the previous summary keyed by options.sessionId, not on the instance").toBe(false);
    const outA = await compactMarked(h, engine, a, "OPEN-A-SECRET-2653");
    expect(allText(outA).includes("OPEN-B-SECRET-5897"), "session A's next pass contains text of session B's pass: keep per-conversation state keyed by options.sessionId, not on the instance").toBe(false);
  }, h.timeout * 2);
}
