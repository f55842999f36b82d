import { AssistantMessageSchema, ChatModelError } from "@context-engine/core";
import type { ChatModelResponse, Usage } from "@context-engine/core";

/** Sum two usages bucket by bucket (the turn's total). */
export function addUsage(total: Usage, usage: Usage): Usage {
  const out: Usage = { ...total };
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === "number") (out as Record<string, number>)[key] = ((out as Record<string, number>)[key] ?? 0) + value;
  }
  return out;
}

/** Check a ChatModel's answer; a malformed one is a typed provider error. */
export function validateResponse(raw: unknown): ChatModelResponse {
  const r = raw as Partial<ChatModelResponse> | null;
  if (!r || typeof r !== "object") throw new ChatModelError("empty", "the chat model returned no response");
  const parsed = AssistantMessageSchema.safeParse(r.message);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ChatModelError(
      "unknown",
      `the chat model returned an invalid assistant message (${issue ? `${issue.path.join(".") || "message"}: ${issue.message}` : "unknown problem"})`,
    );
  }
  return { ...r, message: parsed.data } as ChatModelResponse;
}

