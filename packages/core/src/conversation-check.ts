import { MessageContentSchema, ToolCallSchema, isPlainObject } from "./messages.js";

export type ConversationProblemCode =
  | "not_an_object"
  | "unknown_role"
  | "bad_content"
  | "bad_tool_call"
  | "duplicate_tool_call_id"
  | "orphan_tool_result"
  | "missing_tool_result"
  | "tool_result_out_of_place";

export interface ConversationProblem {
  /** Index of the offending message in the list. */
  index: number;
  code: ConversationProblemCode;
  message: string;
}

export interface CheckConversationOptions {
  /**
   * Allow the final assistant message's tool calls to have no results yet (an
   * in-flight call the host is about to execute). Default true.
   */
  allowTrailingInFlightCall?: boolean;
}

const KNOWN_ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/**
 * Check that a list is a valid OpenAI-format conversation and name every
 * problem with its index: unknown roles, bad content, tool results without
 * their call, and calls left without results.
 *
 * Tool results must follow the assistant message that issued the call, in
 * the run of tool messages directly after it.
 */
export function checkConversation(
  messages: readonly unknown[],
  options: CheckConversationOptions = {},
): ConversationProblem[] {
  const allowTrailing = options.allowTrailingInFlightCall ?? true;
  const problems: ConversationProblem[] = [];
  const seenIds = new Set<string>();
  // Calls of the most recent assistant message still waiting for results.
  let pending: Map<string, number> | null = null;
  let pendingIndex = -1;

  const closePending = (atIndex: number) => {
    if (!pending || pending.size === 0) return;
    const trailing = atIndex === messages.length && pendingIndex === lastAssistantIndex;
    if (!(allowTrailing && trailing)) {
      for (const id of pending.keys()) {
        problems.push({
          index: pendingIndex,
          code: "missing_tool_result",
          message: `message ${pendingIndex}: tool call "${id}" has no tool result after it`,
        });
      }
    }
    pending = null;
  };

  let lastAssistantIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isPlainObject(m) && m.role === "assistant") {
      lastAssistantIndex = i;
      break;
    }
    if (!(isPlainObject(m) && m.role === "tool")) break;
  }

  messages.forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      problems.push({ index, code: "not_an_object", message: `message ${index}: expected an object, got ${describe(raw)}` });
      return;
    }
    const role = raw.role;
    if (typeof role !== "string" || !KNOWN_ROLES.has(role)) {
      problems.push({ index, code: "unknown_role", message: `message ${index}: unknown role ${JSON.stringify(role)}` });
      return;
    }
    if (role !== "tool") closePending(index);

    const content = raw.content;
    const contentOptional = role === "assistant";
    if (!(contentOptional && (content === null || content === undefined)) && !MessageContentSchema.safeParse(content).success) {
      problems.push({
        index,
        code: "bad_content",
        message: `message ${index} (${role}): content must be a string or a list of content parts, got ${describe(content)}`,
      });
    }

    if (role === "assistant") {
      const calls = raw.tool_calls;
      if (calls !== undefined && calls !== null) {
        if (!Array.isArray(calls)) {
          problems.push({ index, code: "bad_tool_call", message: `message ${index}: tool_calls must be a list` });
          return;
        }
        pending = new Map();
        pendingIndex = index;
        for (const call of calls) {
          const parsed = ToolCallSchema.safeParse(call);
          if (!parsed.success) {
            problems.push({ index, code: "bad_tool_call", message: `message ${index}: malformed tool call ${describe(call)}` });
            continue;
          }
          const id = parsed.data.id;
          if (seenIds.has(id)) {
            problems.push({ index, code: "duplicate_tool_call_id", message: `message ${index}: tool call id "${id}" is used twice` });
          }
          seenIds.add(id);
          pending.set(id, index);
        }
      }
    } else if (role === "tool") {
      const id = raw.tool_call_id;
      if (typeof id !== "string" || !id) {
        problems.push({ index, code: "orphan_tool_result", message: `message ${index}: tool result has no tool_call_id` });
        return;
      }
      const currentPending = pending as Map<string, number> | null;
      if (currentPending?.has(id)) {
        currentPending.delete(id);
      } else if (seenIds.has(id)) {
        problems.push({
          index,
          code: "tool_result_out_of_place",
          message: `message ${index}: tool result "${id}" is not directly after the assistant message that called it`,
        });
      } else {
        problems.push({ index, code: "orphan_tool_result", message: `message ${index}: tool result "${id}" has no matching tool call before it` });
      }
    }
  });
  closePending(messages.length);
  return problems;
}

/** Throw a readable error when the conversation has problems. */
export function assertValidConversation(messages: readonly unknown[], options?: CheckConversationOptions): void {
  const problems = checkConversation(messages, options);
  if (problems.length > 0) {
    throw new Error(`invalid conversation:\n${problems.map((p) => `  - ${p.message}`).join("\n")}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string`;
  if (typeof value === "object") return "an object";
  return typeof value;
}
