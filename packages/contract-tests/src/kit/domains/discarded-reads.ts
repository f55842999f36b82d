import type { ContextEngine, Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, replayTurns, startSession, usageFor } from "../session.js";
import { exampleArguments, toolSchemasOf } from "../tool-args.js";
import { allText, countTokens, markConversation } from "../util.js";
import { LATE_MS, discardedPass, firstAnswerOnce, type SeeingModel } from "./discarded-pass.js";
import { overThreshold } from "./over-threshold.js";

// The contract: a pass's work becomes visible only if the host commits the pass. The host discards a
// pass it aborted or timed out, and one whose result fails its validation (the engine is not told
// which). Durable state is not only files: a summary, a DAG node or a counter the next call can read
// through the engine (its figures, status, tools, or the next session's pass) is published too.

/** A search word and a secret next to it: the secret in a tool answer is a leak, an echoed query is not. */
function discardedSummary(label: string): { needle: string; secret: string; marker: string } {
  const needle = `zq${label}needle`;
  const secret = `${label.toUpperCase()}-DISCARDED-SUMMARY-${process.pid}-${Date.now()}`;
  return { needle, secret, marker: `${needle} ${secret}` };
}

/** Everything the engine shows of itself: its status, and each tool asked for `needle` in `sessionId`. */
async function readableState(engine: ContextEngine, sessionId: string, messages: readonly Message[], needle: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  try {
    out.push(["getStatus()", allText(engine.getStatus())]);
  } catch {
    // A throwing getStatus is the status domain's concern.
  }
  for (const schema of toolSchemasOf(engine)) {
    try {
      const answer = await engine.handleToolCall(schema.name, exampleArguments(schema.parameters, needle), { sessionId, messages: cloneMessages(messages as Message[]) });
      out.push([`tool ${schema.name}`, allText(answer)]);
    } catch {
      // Throwing tools are the tools domain's concern.
    }
  }
  return out;
}

/** A second session on the same instance compacts its own conversation; what it produced and showed its model. */
async function nextSessionPass(h: Harness, engine: ContextEngine, model: SeeingModel, first: { sessionId: string; messages: Message[] }) {
  const caps = await h.capabilities();
  // An engine serving one session at a time sees the first one end; the others keep it open, as a gateway does.
  if (!caps.concurrentSessions) await engine.onSessionEnd(first.sessionId, first.messages);
  const sessionId = newSessionId("after-discard");
  await startSession(h, engine, sessionId);
  const messages = markConversation(cloneMessages(fixtures.codingSession.messages), "NEXT-SESSION-7731");
  await replayTurns(engine, messages, sessionId);
  engine.updateFromResponse(usageFor(messages));
  const seenBefore = model.prompts.length;
  const out = await engine.compress(messages, { currentTokens: countTokens(messages), sessionId });
  return { out, prompts: model.prompts.slice(seenBefore).join("\n") };
}

export function registerDiscardedReads(h: Harness): void {
  it("an aborted pass leaves compressionCount and shouldCompress as they were", async (ctx) => {
    const { marker } = discardedSummary("count");
    const { engine, tokens, before, abortedMidPass } = await discardedPass(h, marker);
    if (!abortedMidPass) return ctx.skip("the pass completed before the host's abort arrived");
    expect(engine.compressionCount, "compressionCount changed although the host aborted the pass: count a compaction only when the pass completes unaborted").toBe(before.compressionCount);
    expect(engine.shouldCompress(tokens), "shouldCompress answers differently after an aborted pass: a pass the host discarded must not arm a cooldown or a 'just compacted' state").toBe(before.shouldCompress);
  }, h.timeout + LATE_MS + 2 * h.abortGraceMs);

  it("an aborted pass's summary is readable through nothing: not the status, the tools or another session's pass", async () => {
    const { needle, secret, marker } = discardedSummary("aborted");
    const run = await discardedPass(h, marker);
    for (const [where, text] of await readableState(run.engine, run.sessionId, run.messages, needle)) {
      expect(text.includes(secret), `${where} shows the summary of a pass the host aborted: keep a pass's results private until it completes unaborted`).toBe(false);
    }
    const next = await nextSessionPass(h, run.engine, run.model, run);
    expect(allText(next.out).includes(secret), "another session's compaction carries the summary of a pass the host aborted").toBe(false);
    expect(next.prompts.includes(secret), "another session's compaction showed its summary model the summary of a pass the host aborted").toBe(false);
  }, h.timeout * 2 + LATE_MS + 2 * h.abortGraceMs);

  it("a completed pass the host drops (its result failed validation) never reaches another session", async () => {
    const { needle, secret, marker } = discardedSummary("dropped");
    const model = firstAnswerOnce(marker, 0);
    const run = await overThreshold(h, { chatModel: model });
    const kept = cloneMessages(run.messages);
    // The host validates the result and drops it: its conversation stays as it was.
    await run.engine.compress(cloneMessages(run.messages), { currentTokens: run.tokens, sessionId: run.sessionId });
    const next = await nextSessionPass(h, run.engine, model, { sessionId: run.sessionId, messages: kept });
    expect(allText(next.out).includes(secret), "another session's compaction carries the summary of a pass the first session's host never committed: keep per-conversation state keyed by session").toBe(false);
    expect(next.prompts.includes(secret), "another session's compaction showed its summary model a summary from another session").toBe(false);
    const tools = (await readableState(run.engine, newSessionId("stranger"), [], needle)).filter(([where]) => where.startsWith("tool "));
    for (const [where, text] of tools) {
      expect(text.includes(secret), `${where}, asked from an unrelated session, shows another session's summary`).toBe(false);
    }
  }, h.timeout * 2);
}
