import type { Role } from "@context-engine/core";

/** What chunking needs to know of a message: never its content. */
export interface MessageShape {
  id: number;
  role: Role;
  tokens: number;
  /** Calls this assistant message makes. */
  toolCallIds: readonly string[];
  /** For a tool result: the call it answers. */
  toolCallId: string | null;
}

/**
 * A unit is the smallest thing compaction may cut around: a single message,
 * or an assistant message with tool calls together with every result it got.
 * `complete` is false when some call has no stored result yet (in flight, or
 * the run ends before the results): such a unit must not be summarised.
 */
export interface Unit {
  start: number;
  /** Exclusive. */
  end: number;
  tokens: number;
  complete: boolean;
}

/** Split a run of consecutive messages into units. Stray tool results form their own (complete) unit. */
export function splitUnits(messages: readonly MessageShape[]): Unit[] {
  const units: Unit[] = [];
  let i = 0;
  while (i < messages.length) {
    const m = messages[i]!;
    const start = i;
    let tokens = m.tokens;
    i++;
    if (m.role === "assistant" && m.toolCallIds.length > 0) {
      const pending = new Set(m.toolCallIds);
      while (i < messages.length && messages[i]!.role === "tool") {
        const r = messages[i]!;
        if (r.toolCallId) pending.delete(r.toolCallId);
        tokens += r.tokens;
        i++;
      }
      units.push({ start, end: i, tokens, complete: pending.size === 0 });
      continue;
    }
    if (m.role === "tool") {
      // Results separated from their call (out-of-place input): keep the run together.
      while (i < messages.length && messages[i]!.role === "tool") {
        tokens += messages[i]!.tokens;
        i++;
      }
    }
    units.push({ start, end: i, tokens, complete: true });
  }
  return units;
}
