import type { Message } from "@context-engine/core";
import { contentText, createEstimator } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ContextCompressor } from "../src/index.js";
import { agentConversation, expectValid } from "./helpers.js";

const counter = createEstimator();

describe("pruneToolResultsOnly", () => {
  it("trims old large tool results deterministically, keeps the tail, and never calls a model", async () => {
    const calls: unknown[] = [];
    const engine = new ContextCompressor({
      contextLength: 64_000,
      chatModel: {
        async complete(r) {
          calls.push(r);
          throw new Error("must not be called");
        },
      },
    });
    const messages = agentConversation({ turns: 12, resultChars: 6_000 });
    const first = await engine.pruneToolResultsOnly(messages);
    const second = await engine.pruneToolResultsOnly(messages);
    expect(calls).toHaveLength(0);
    expect(first.pruned).toBeGreaterThan(0);
    expect(first.messages).toEqual(second.messages); // deterministic
    expectValid(first.messages);
    expect(first.messages).toHaveLength(messages.length);
    expect(counter.countMessages(first.messages)).toBeLessThan(counter.countMessages(messages));
    // The recent tail and the head are untouched (same objects).
    expect(first.messages.at(-1)).toBe(messages.at(-1));
    expect(first.messages.at(-2)).toBe(messages.at(-2));
    expect(first.messages[0]).toBe(messages[0]);
    // Trimmed results say what they were and keep their start.
    const trimmed = first.messages.find((m, i) => m !== messages[i])!;
    const text = contentText(trimmed.content);
    expect(text).toMatch(/^\[tool output trimmed by the context compressor: bash\(command="cat src\/module_\d+\.ts/);
    expect(text).toContain("output of step");
    // Input untouched.
    expect(contentText(messages[3]!.content).length).toBeGreaterThan(6_000);
  });

  it("returns the same list and 0 when it has nothing to do", async () => {
    const engine = new ContextCompressor({ contextLength: 64_000 });
    const small = agentConversation({ turns: 6, resultChars: 500 });
    const result = await engine.pruneToolResultsOnly(small);
    expect(result.messages).toBe(small);
    expect(result.pruned).toBe(0);
    const empty: Message[] = [];
    expect((await engine.pruneToolResultsOnly(empty)).messages).toBe(empty);
  });

  it("does nothing below the trigger or when too little would be reclaimed", async () => {
    const engine = new ContextCompressor({ contextLength: 64_000, config: { prune_trigger_percent: 0.5 } });
    const messages = agentConversation({ turns: 12, resultChars: 6_000 });
    const below = await engine.pruneToolResultsOnly(messages, { currentTokens: 1_000 });
    expect(below.messages).toBe(messages);
    const strict = new ContextCompressor({ contextLength: 64_000, config: { prune_min_reclaim_tokens: 10_000_000 } });
    const tooLittle = await strict.pruneToolResultsOnly(messages);
    expect(tooLittle).toEqual({ messages, pruned: 0 });
  });

  it("replaces older exact duplicates of a tool output", async () => {
    const engine = new ContextCompressor({ contextLength: 64_000, config: { prune_min_reclaim_tokens: 0 } });
    const same = "identical listing\n" + "file.txt\n".repeat(100);
    const messages: Message[] = [{ role: "system", content: "s" }, { role: "user", content: "go" }];
    for (let i = 0; i < 12; i++) {
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "ls", arguments: "{}" } }] });
      messages.push({ role: "tool", tool_call_id: `c${i}`, content: same });
    }
    const { messages: out, pruned } = await engine.pruneToolResultsOnly(messages);
    expect(pruned).toBeGreaterThan(0);
    expect(contentText(out.at(-1)!.content)).toBe(same);
    expect(out.some((m) => contentText(m.content).includes("identical to a later result"))).toBe(true);
    expectValid(out);
  });
});
