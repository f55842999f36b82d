import { contentText, isPinsBlock, pinsBlock, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import type { Harness } from "../harness.js";
import { usageFor } from "../session.js";
import { countTokens } from "../util.js";
import { overThreshold } from "./over-threshold.js";

/** Pins with what engines like to normalise: blank lines, indentation, trailing spaces, a long line. */
const PINS = [
  { id: "p1", text: "Deploys go out on Tuesdays at 14:00 UTC.\n\n  Never on Fridays.  " },
  { id: "p2", text: `Style: British spelling; no emoji. ${"Keep answers short. ".repeat(12)}` },
];

const SYSTEM: Message = { role: "system", content: "You are a careful coding agent." };

/**
 * Pins (core README, "Pins"): the host's pins block sits right after the
 * system prompt and belongs to the protected head. Over a pass and a forced
 * pass on its result, the engine hands the block back verbatim, exactly
 * once, directly after the system prompt, whose text it keeps.
 */
export function registerPinsHead(h: Harness): void {
  it("keeps the protected head (system prompt and pins block) intact when pins are present", async () => {
    const { engine, sessionId, messages } = await overThreshold(h);
    const block = pinsBlock(PINS)!;
    const lead = messages.findIndex((m) => m.role !== "system" && m.role !== "developer");
    const system = lead > 0 ? messages.slice(0, lead) : [SYSTEM];
    const input: Message[] = [...system, block, ...messages.slice(Math.max(lead, 0))];
    engine.updateFromResponse(usageFor(input));
    const first = await engine.compress(cloneMessages(input), { currentTokens: countTokens(input), sessionId });
    expectHeadKept(first, system, block, "compress");
    const second = await engine.compress(cloneMessages(first), { currentTokens: countTokens(first), sessionId, force: true, focusTopic: "deploys" });
    expectHeadKept(second, system, block, "a forced compress on its result");
  }, h.timeout * 2);
}

function expectHeadKept(result: Message[], system: Message[], block: Message, what: string): void {
  const blocks = result.filter(isPinsBlock);
  expect(blocks.length, `${what} returned ${blocks.length} pins blocks; the one pins block must come back once, verbatim`).toBe(1);
  const at = result.findIndex(isPinsBlock);
  expect(result[at], `${what} changed the pins block; pins are kept verbatim (not trimmed, merged or summarised)`).toEqual(block);
  expect(at, `${what} moved the pins block to index ${at}; it stays right after the system prompt (index ${system.length})`).toBe(system.length);
  system.forEach((m, i) => {
    expect(result[i]?.role, `${what}: message ${i} of the protected head is no longer the system prompt`).toBe(m.role);
    expect(contentText(result[i]!.content).startsWith(contentText(m.content)), `${what} rewrote the system prompt's text`).toBe(true);
  });
}
