import { checkConversation, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { allFixtures, fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, usageFor } from "../session.js";
import { countTokens } from "../util.js";
import { registerDiscardedPass } from "./discarded-pass.js";
import { registerForce } from "./compress-force.js";
import { registerCompressCuts } from "./compress-cuts.js";
import { overThreshold } from "./over-threshold.js";
import { registerPinsHead } from "./pins-head.js";

const isSystem = (m: Message) => m.role === "system" || m.role === "developer";

export function registerCompressRules(h: Harness): void {
  it("keeps system messages only at the start (no summary as a system message mid-conversation)", async () => {
    for (const fixture of allFixtures()) {
      const engine = await h.create({ contextLength: h.compactionContextLength });
      const sessionId = newSessionId("system");
      await startSession(h, engine, sessionId);
      const messages = cloneMessages(fixture.messages);
      const lead = messages.findIndex((m) => !isSystem(m));
      if (messages.slice(Math.max(lead, 0)).some(isSystem)) continue; // the input itself has one mid-way
      engine.updateFromResponse(usageFor(messages));
      const result = await engine.compress(messages, { currentTokens: countTokens(messages), sessionId });
      const firstOther = result.findIndex((m) => !isSystem(m));
      const late = firstOther < 0 ? [] : result.slice(firstOther).filter(isSystem);
      expect(late.length, `compress(${fixture.name}) put ${late.length} system/developer message(s) after the conversation started; merge a summary into the first system message or send it as a user/assistant message`).toBe(0);
    }
  }, h.timeout * 2);

  registerForce(h);
  registerCompressCuts(h);
  registerDiscardedPass(h);
  registerPinsHead(h);

  it("raises compressionCount by exactly one per compaction", async () => {
    const { engine, sessionId, messages, tokens } = await overThreshold(h);
    const before = engine.compressionCount;
    const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
    if (countTokens(result) >= tokens) return; // did not compact: the shrink check reports it
    expect(engine.compressionCount - before, `one compaction must raise compressionCount by 1 (was ${before}, now ${engine.compressionCount})`).toBe(1);
    // A conversation that fits: a call that compacts nothing must not count.
    const roomy = await h.create({ contextLength: h.contextLength });
    const small = cloneMessages(fixtures.systemPromptChat.messages);
    const out = await roomy.compress(small, { currentTokens: countTokens(small), sessionId: newSessionId("fits") });
    if (countTokens(out) >= countTokens(small)) {
      expect(roomy.compressionCount, "a compress call that compacted nothing must not raise compressionCount").toBe(0);
    }
  }, h.timeout);

  it("compress returns its list directly when the engine declares itself synchronous", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.synchronous) return ctx.skip("the engine may return a promise from compress");
    const { engine, sessionId, messages, tokens } = await overThreshold(h);
    const result = engine.compress(messages, { currentTokens: tokens, sessionId });
    expect(Array.isArray(result), "a synchronous engine's compress must return the list, not a promise").toBe(true);
  }, h.timeout);

  it("shouldCompressPreflight answers a boolean and leaves its input alone", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    for (const fixture of allFixtures()) {
      const messages = cloneMessages(fixture.messages);
      const kept = structuredClone(messages);
      const answer = await engine.shouldCompressPreflight(messages);
      expect(typeof answer, `shouldCompressPreflight(${fixture.name}) must return a boolean`).toBe("boolean");
      expect(messages, `shouldCompressPreflight(${fixture.name}) must not change the messages`).toEqual(kept);
    }
  }, h.timeout);

  it("pruneToolResultsOnly returns a valid list and counts what it pruned", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    for (const fixture of allFixtures()) {
      const messages = cloneMessages(fixture.messages);
      const before = countTokens(messages);
      const out = await engine.pruneToolResultsOnly(messages, { currentTokens: before });
      expect(out && Array.isArray(out.messages) && Number.isInteger(out.pruned) && out.pruned >= 0, `pruneToolResultsOnly(${fixture.name}) must return { messages, pruned ≥ 0 }`).toBe(true);
      expect(checkConversation(out.messages, { allowTrailingInFlightCall: true }).map((p) => p.message), `pruneToolResultsOnly(${fixture.name}) returned an invalid conversation`).toEqual([]);
      if (out.pruned === 0) expect(countTokens(out.messages), `pruneToolResultsOnly(${fixture.name}) reported 0 pruned but changed the size`).toBe(before);
      else expect(countTokens(out.messages) < before, `pruneToolResultsOnly(${fixture.name}) reported ${out.pruned} pruned but did not shrink`).toBe(true);
      expect(typeof engine.hasContentToCompress(messages), "hasContentToCompress must return a boolean").toBe("boolean");
    }
  }, h.timeout);
}

