import { checkConversation, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import type { Harness } from "../harness.js";
import { countTokens, markConversation } from "../util.js";
import { overThreshold } from "./over-threshold.js";

// `force` is a manual compaction (`/compress`): it bypasses whatever the engine uses to hold a pass
// back (cooldowns, "already summarised", "under the threshold", anti-thrash guards). Each check puts
// the engine in one such state and asks for a forced pass on a conversation it can compact.

const started = (h: Harness, figure?: number) => overThreshold(h, figure === undefined ? {} : { figure });

const compacted = (out: readonly Message[], tokens: number) => countTokens(out) < tokens;

function expectValid(out: Message[], what: string): void {
  expect(checkConversation(out, { allowTrailingInFlightCall: true }).map((p) => p.message), `${what} returned an invalid conversation`).toEqual([]);
}

export function registerForce(h: Harness): void {
  it("force: a manual compress right after a compaction still compacts", async () => {
    const { engine, sessionId, messages, tokens } = await started(h);
    const first = await engine.compress(cloneMessages(messages), { currentTokens: tokens, sessionId });
    if (!compacted(first, tokens)) return; // did not compact at all: the shrink check reports it
    const forced = await engine.compress(cloneMessages(messages), { currentTokens: tokens, sessionId, force: true });
    const after = countTokens(forced);
    expect(after < tokens, `compress(…, { force: true }) right after a compaction returned ${after} of ${tokens} tokens: force must bypass cooldowns and guards`).toBe(true);
    expectValid(forced, "a forced compress");
  }, h.timeout);

  it("force: a manual compress compacts although the host's figure is under the threshold", async () => {
    // The same list, unforced, with an over-threshold figure: what the engine can do with it.
    const baseline = await started(h);
    const plain = await baseline.engine.compress(cloneMessages(baseline.messages), { currentTokens: baseline.tokens, sessionId: baseline.sessionId });
    if (!compacted(plain, baseline.tokens)) return; // did not compact at all: the shrink check reports it
    const figure = Math.floor(baseline.engine.thresholdTokens / 2);
    const { engine, sessionId, messages, tokens } = await started(h, figure);
    const forced = await engine.compress(messages, { currentTokens: figure, sessionId, force: true });
    const after = countTokens(forced);
    expect(
      after < tokens,
      `compress(…, { force: true, currentTokens: ${figure} }) under the threshold (${engine.thresholdTokens}) returned ${after} of ${tokens} tokens, although the same list is compacted when over it: /compress runs at any size, so force must bypass the threshold guard too`,
    ).toBe(true);
    expectValid(forced, "a forced compress under the threshold");
  }, h.timeout);

  it("force: a manual compress compacts a conversation that already holds a summary", async () => {
    const { engine, sessionId, messages, tokens } = await started(h);
    const first = await engine.compress(cloneMessages(messages), { currentTokens: tokens, sessionId });
    if (!compacted(first, tokens)) return; // did not compact at all: the shrink check reports it
    // The host goes on from the committed list: the same work again, with new text, after the summary.
    const lead = messages.findIndex((m) => m.role !== "system" && m.role !== "developer");
    const more = markConversation(cloneMessages(messages.slice(lead)), "second round");
    const grown = [...cloneMessages(first), ...more];
    const grownTokens = countTokens(grown);
    const forced = await engine.compress(grown, { currentTokens: grownTokens, sessionId, force: true });
    const after = countTokens(forced);
    expect(
      after < grownTokens,
      `compress(…, { force: true }) of a committed summary plus ${more.length} new messages (${grownTokens} tokens, threshold ${engine.thresholdTokens}) returned ${after} tokens: a conversation that already holds a summary must still compact when forced`,
    ).toBe(true);
    expectValid(forced, "a forced compress after a summary");
  }, h.timeout);
}
