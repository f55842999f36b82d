import type { ChatModel, ChatModelResponse } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { agentConversation } from "./helpers.js";

const says = (content: string): ChatModel => ({
  model: "says",
  async complete(): Promise<ChatModelResponse> {
    return { message: { role: "assistant", content }, finishReason: "stop" } as ChatModelResponse;
  },
});

describe("a refusal never becomes the compressor's summary", () => {
  it("falls back to the extractive summary for refusals in typographic, dashed, emphasised and quoted styles", async () => {
    for (const refusal of [
      "I\u2019m sorry, but I can\u2019t help with that.",
      "Sorry \u2014 I can't assist with this request.",
      "**I'm sorry, but I cannot comply with this request.**",
      "\u201CI'm unable to provide a summary of this content.\u201D",
      "> _As an AI language model, I can't summarize private conversations._",
    ]) {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: says(refusal) });
      const out = await engine.compress(agentConversation({ turns: 12 }));
      expect(engine.getStatus().lastCompaction?.mode, refusal).toBe("fallback");
      // The fallback names the rejection; the refusal is never the summary body.
      expect(contentText(out.find(isSummaryMessage)!.content)).toMatch(/refusal/);
    }
  });
});
