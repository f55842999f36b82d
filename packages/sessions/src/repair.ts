import { checkConversation, contentText, isPlainObject, type Message } from "@context-engine/core";
import { SessionFormatError } from "./errors.js";

/** Content of the tool result inserted for a recorded call that never got one. */
export const MISSING_RESULT_CONTENT = "(no result was recorded for this tool call)";

/**
 * Make a converted conversation a valid OpenAI sequence without losing
 * anything, and say what was changed:
 *
 * - a tool-call id reused within the session (replayed demonstrations and
 *   tau-bench do this) is renamed `<id>~<n>`, together with its results;
 * - a call that is not the trailing in-flight one and has no result gets a
 *   placeholder result right after the existing ones;
 * - a tool result with no matching call before it becomes a user message that
 *   quotes it (its text is kept).
 *
 * Throws a SessionFormatError naming the first problems when the list is
 * still invalid afterwards (unknown roles, bad content).
 */
export function repairConversation(path: string, input: Message[]): { messages: Message[]; repairs: string[] } {
  const repairs: string[] = [];
  const out: Message[] = [];
  const usedIds = new Map<string, number>();
  // Results still expected for the latest assistant message: original id -> id in the output.
  let pending = new Map<string, string>();

  const flushPending = () => {
    for (const [original, id] of pending) {
      out.push({ role: "tool", tool_call_id: id, content: MISSING_RESULT_CONTENT });
      repairs.push(`added a placeholder result for tool call "${original}" that had none`);
    }
    pending = new Map();
  };

  for (const message of input) {
    const m = message as Record<string, unknown>;
    if (m.role !== "tool") flushPending();
    if (m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const calls = (m.tool_calls as unknown[]).map((call) => {
        if (!isPlainObject(call) || typeof call.id !== "string" || !call.id) return call;
        const seen = usedIds.get(call.id) ?? 0;
        usedIds.set(call.id, seen + 1);
        const id = seen === 0 ? call.id : `${call.id}~${seen + 1}`;
        if (id !== call.id) {
          repairs.push(`renamed reused tool call id "${call.id}" to "${id}"`);
          usedIds.set(id, 1);
        }
        pending.set(call.id, id);
        return id === call.id ? call : { ...call, id };
      });
      out.push({ ...m, tool_calls: calls } as Message);
      continue;
    }
    if (m.role === "tool") {
      const original = typeof m.tool_call_id === "string" ? m.tool_call_id : "";
      const id = pending.get(original);
      if (id !== undefined) {
        pending.delete(original);
        out.push(id === original ? message : ({ ...m, tool_call_id: id } as Message));
      } else {
        repairs.push(`turned tool result "${original}" without a matching call into a user message`);
        out.push({ role: "user", content: `[tool result ${original || "(no id)"}]\n${contentText(m.content)}` });
      }
      continue;
    }
    out.push(message);
  }
  // A trailing in-flight call (the recording stopped mid-call) stays as it is.
  pending = new Map();

  const problems = checkConversation(out);
  if (problems.length > 0) {
    const listed = problems.slice(0, 5).map((p) => p.message).join("; ");
    throw new SessionFormatError(path, `the converted conversation is not valid OpenAI format: ${listed}`);
  }
  return { messages: out, repairs };
}
