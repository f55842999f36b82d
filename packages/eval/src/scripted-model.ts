import type { ChatModel, ChatModelResponse } from "@context-engine/core";

/**
 * The scripted summary model of the coding eval: it answers every summary
 * request with the same short paraphrase under the template's headings and
 * states no path, command, error line or number. It stands for the worst
 * well-formed model summary, so what the compressor's next request holds of
 * the dropped turns' facts is what the compressor adds on its own (the quoted
 * latest request, the identifier anchors, the exact-facts section). No network.
 */
export const SCRIPTED_SUMMARY = [
  "## Latest Request",
  "Continue the task described by the user.",
  "## Goal",
  "Resolve the issue the user reported in the repository.",
  "## Progress",
  "1. Explored the code, ran a few commands and edited some files.",
  "## Current State",
  "Work in progress; the last steps are shown after this summary.",
  "## Next Steps",
  "Continue from the messages after this summary.",
].join("\n");

export function scriptedSummaryModel(): ChatModel {
  return {
    model: "scripted-summary",
    async complete(): Promise<ChatModelResponse> {
      return { message: { role: "assistant", content: SCRIPTED_SUMMARY }, finishReason: "stop" } as ChatModelResponse;
    },
  };
}
