import type { Message, Usage } from "@context-engine/core";
import { repairConversation } from "../repair.js";
import type { RecordedSession } from "../types.js";

/** Repair and validate a converted session; attaches `repairs` only when something changed. */
export function finishSession(session: RecordedSession): RecordedSession {
  const { messages, repairs } = repairConversation(session.source.path, session.messages);
  const out: RecordedSession = { ...session, messages };
  if (session.times) {
    // Repairs add or rewrite messages: times follow the messages themselves, a new one has none.
    const timeOf = new Map(session.messages.map((m, i) => [m, session.times![i] ?? null]));
    const times = messages.map((m) => timeOf.get(m) ?? null);
    if (times.some((t) => t !== null)) out.times = times;
    else delete out.times;
  }
  if (repairs.length > 0) out.repairs = repairs;
  if (out.usage) {
    // One entry per assistant message, in order, whatever the converter produced.
    const assistants = messages.filter((m) => m.role === "assistant").length;
    const usage: Array<Usage | null> = out.usage.slice(0, assistants);
    while (usage.length < assistants) usage.push(null);
    out.usage = usage.some((u) => u !== null) ? usage : undefined;
    if (!out.usage) delete out.usage;
  }
  return out;
}

/** Remove keys whose value is null or undefined (deeply through tool calls). */
export function dropNulls<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    if (key === "tool_calls" && Array.isArray(v)) {
      out[key] = v.map((call) => (call && typeof call === "object" && !Array.isArray(call) ? dropNulls(call as Record<string, unknown>) : call));
    } else if (key === "function" && v && typeof v === "object" && !Array.isArray(v)) {
      out[key] = dropNulls(v as Record<string, unknown>);
    } else out[key] = v;
  }
  return out as T;
}

export type { Message };
