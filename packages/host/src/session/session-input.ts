import { MAX_RESULT_DEPTH, UserMessageSchema, exceedsDepth } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import { HostError } from "../errors.js";
import type { OpenSessionOptions } from "./session-options.js";

/** The conversation a session opens with: the system prompt, then a copy of the history. */
export function initialMessages(options: OpenSessionOptions): Message[] {
  const out: Message[] = [];
  if (options.systemPrompt) out.push({ role: "system", content: options.systemPrompt });
  if (options.history) out.push(...cloneMessages(options.history));
  return out;
}

/** `send`'s input as a user message (a copy), or an `invalid_input` error naming what is wrong. */
export function toUserMessage(input: string | Message): Message {
  if (typeof input === "string") return { role: "user", content: input };
  // Checked before anything recurses into it.
  if (exceedsDepth(input, MAX_RESULT_DEPTH)) {
    throw new HostError("invalid_input", `send: the message is nested more than ${MAX_RESULT_DEPTH} levels deep`);
  }
  const parsed = UserMessageSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HostError(
      "invalid_input",
      `send: expected user text or a user message { role: "user", content }` +
        (issue ? ` (${issue.path.join(".") || "message"}: ${issue.message})` : ""),
    );
  }
  return structuredClone(parsed.data) as Message;
}
