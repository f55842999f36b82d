import { contentText } from "@context-engine/core";
import type { ChatModel, ChatModelRequest, ChatModelResponse } from "@context-engine/core";

/**
 * A summariser that answers at once, so the benchmark times the engine and
 * not a model. Its answer is extractive (the first words of the source), so
 * it passes the engines' faithfulness checks like a real summary would.
 */
export function createInstantSummariser(words = 120): ChatModel & { calls: number } {
  const model = {
    model: "instant-summariser",
    calls: 0,
    async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
      model.calls++;
      const prompt = contentText(request.messages[request.messages.length - 1]?.content ?? "");
      const source = /<source>\n([\s\S]*?)\n<\/source>/.exec(prompt)?.[1] ?? prompt;
      const picked = source.split(/\s+/).filter(Boolean).slice(0, words).join(" ");
      const text = `Summary: ${picked}\nExpand for details about: the rest of this segment.`;
      return {
        message: { role: "assistant", content: text },
        usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(text.length / 4), total_tokens: Math.ceil((prompt.length + text.length) / 4) },
        finishReason: "stop",
        model: "instant-summariser",
      };
    },
  };
  return model;
}
