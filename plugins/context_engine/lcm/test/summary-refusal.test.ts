import type { ChatModel, ChatModelResponse } from "@context-engine/core";
import { estimateTextTokens, silentLogger } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { renderSourceMessages } from "../src/compaction/source-text.js";
import { Summarizer } from "../src/compaction/summarizer.js";
import { agentConversation } from "./engine-helpers.js";

const says = (content: string): ChatModel => ({
  model: "says",
  async complete(): Promise<ChatModelResponse> {
    return { message: { role: "assistant", content }, finishReason: "stop" } as ChatModelResponse;
  },
});

describe("a refusal is never stored as an LCM summary", () => {
  const source = renderSourceMessages(agentConversation(6, 2).slice(1).map((message, seq) => ({ seq, message })));
  const sourceTokens = estimateTextTokens(source);

  it("falls back for refusals in typographic, dashed, emphasised and quoted styles", async () => {
    for (const refusal of [
      "I\u2019m sorry, but I can\u2019t help with that.",
      "Sorry \u2014 I can't assist with this request.",
      "**I'm sorry, but I cannot comply with this request.**",
      "\u201CI'm unable to provide a summary of this content.\u201D",
      "> _As an AI language model, I can't summarize private conversations._",
      "Please provide the conversation you would like me to summarize.",
    ]) {
      const summarizer = new Summarizer({
        chatModel: says(refusal),
        temperature: 0,
        timeoutMs: 5_000,
        fallbackMaxTokens: 512,
        customInstructions: "",
        maxUnsupportedRatio: 0.34,
        breakerFailures: 3,
        breakerCooldownMs: 60_000,
        logger: silentLogger,
      });
      const r = await summarizer.summarize({ depth: 0, source, sourceTokens, targetTokens: 300 });
      expect(r.level, refusal).toBe("fallback");
      expect(r.rejected?.reason, refusal).toBe("refusal");
    }
  });
});
