// Every sentence of LCM's notes is true: the quoted request is the turn's own (a host that sends the
// turn's message after the list gets no quote of an earlier one), and no summaries are announced
// where none are shown.
import { afterEach, describe, expect, it } from "vitest";
import { contentText } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { keepRequest, turnRequest } from "../src/assembly/keep-request.js";
import { CONTEXT_TAG, renderSummaryBlock } from "../src/assembly/render.js";
import { agentConversation } from "./engine-helpers.js";
import { makeEngine } from "./engine-setup.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const system: Message = { role: "system", content: "You are a coding agent." };
const earlier: Message = { role: "user", content: "Rename the parser module." };
const answer: Message = { role: "assistant", content: "Renamed." };
const now: Message = { role: "user", content: "Now add a test for the tokenizer." };
const SUMMARIES_BELOW = "The summaries below";
const QUOTE = "quoted verbatim";

const blocks = (messages: readonly Message[]) => messages.map((m) => contentText(m.content ?? "")).filter((t) => t.startsWith(CONTEXT_TAG));

describe("the turn's request", () => {
  it("is the list's newest user message when the host hands no incoming message over", () => {
    expect(turnRequest([system, earlier, answer], undefined)).toBe(earlier);
  });

  it("is the list's copy of the incoming message, also when the host decorated it", () => {
    expect(turnRequest([system, earlier, answer, now], now)).toEqual(now);
    const decorated: Message = { role: "user", content: `[Sun 2026-12-06 02:40 UTC] ${now.content}` };
    expect(turnRequest([system, earlier, answer, decorated], now)).toBe(decorated);
  });

  it("is nothing to keep when the host sends the incoming message after the list (an earlier one is not the request)", () => {
    expect(turnRequest([system, earlier, answer], now)).toBeNull();
    expect(keepRequest([system, answer], turnRequest([system, earlier, answer], now), 1).messages).toEqual([system, answer]);
  });
});

describe("notes without summaries announce none", () => {
  it("a block with no summary has no 'summaries below' preamble; one with summaries has it", () => {
    const empty = renderSummaryBlock([], 3);
    expect(empty).not.toContain(SUMMARIES_BELOW);
    expect(empty).toContain("not shown here");
    expect(empty).toContain("3 older item(s)");
    const full = renderSummaryBlock(['<summary id="s1">earlier work</summary>'], 0);
    expect(full).toContain(SUMMARIES_BELOW);
  });

  it("a quote in a block without summaries does not say the messages are summarised above", () => {
    const kept = keepRequest([system, { role: "user", content: renderSummaryBlock([], 2) }, answer], earlier, 1);
    const text = contentText(kept.messages[1]!.content);
    expect(text).toContain(earlier.content);
    expect(text).not.toContain("summarised above");
    expect(text).not.toContain(SUMMARIES_BELOW);
    const withSummary = keepRequest([system, { role: "user", content: renderSummaryBlock(['<summary id="s1">x</summary>'], 0) }, answer], earlier, 1);
    expect(contentText(withSummary.messages[1]!.content)).toContain("summarised above");
  });
});

describe("LcmEngine.compress with the host's incoming message", () => {
  // A long last turn, so its user message is compacted out of the fresh tail.
  function setup() {
    const made = makeEngine({ config: { fresh_tail_count: 2 } });
    cleanups.push(made.cleanup);
    return made.engine;
  }
  const history = agentConversation(30, 7);
  const lastUser = [...history].reverse().find((m) => m.role === "user")!;

  it("quotes no earlier message as the request when the turn's own comes after the list", async () => {
    const engine = setup();
    const out = await engine.compress(structuredClone(history), { sessionId: "s", force: true, incomingMessage: now });
    expect(out.length).toBeLessThan(history.length);
    const notes = blocks(out).join("\n");
    expect(notes).not.toContain(QUOTE);
    expect(notes).not.toContain(contentText(lastUser.content));
    for (const note of blocks(out)) if (note.includes(SUMMARIES_BELOW)) expect(note).toContain("<summary ");
  });

  it("still quotes the list's own request, where it was made, when no incoming message is given", async () => {
    const engine = setup();
    const out = await engine.compress(structuredClone(history), { sessionId: "s", force: true });
    const notes = blocks(out).join("\n");
    expect(notes).toContain(QUOTE);
    expect(notes).toContain(contentText(lastUser.content));
    expect(notes).not.toContain("latest request");
  });
});
