import type { Role } from "@context-engine/core";
import type { FrontierItem, SummaryLevel, SummaryKind, SummaryRecord } from "../types.js";

/** PostgreSQL row -> record mapping (bigint columns arrive as strings). */
export function toSummary(r: Record<string, unknown>): SummaryRecord {
  return {
    id: String(r.id),
    conversationId: Number(r.conversation_id),
    kind: r.kind as SummaryKind,
    depth: Number(r.depth),
    content: String(r.content),
    tokens: Number(r.tokens),
    level: r.level as SummaryLevel,
    model: (r.model as string | null) ?? null,
    earliestAt: Number(r.earliest_at),
    latestAt: Number(r.latest_at),
    firstSeq: Number(r.first_seq),
    lastSeq: Number(r.last_seq),
    descendantMessages: Number(r.descendant_messages),
    sourceTokens: Number(r.source_tokens),
    meta: (r.meta as Record<string, unknown> | null) ?? null,
    createdAt: Number(r.created_at),
  };
}

export function toFrontierItem(r: Record<string, unknown>): FrontierItem {
  const base = { ordinal: Number(r.ordinal), tokens: Number(r.tokens) };
  return r.message_id !== null && r.message_id !== undefined
    ? { kind: "message", messageId: Number(r.message_id), ...base }
    : { kind: "summary", summaryId: String(r.summary_id), ...base };
}

/** A frontier row joined with its message's role and tool-call columns. */
export function toShapedFrontierItem(r: Record<string, unknown>): FrontierItem {
  const item = toFrontierItem(r);
  if (item.kind === "message" && r.role !== null && r.role !== undefined) {
    item.shape = { role: r.role as Role, toolCallIds: [...((r.tool_call_ids as string[] | null) ?? [])], toolCallId: (r.tool_call_id as string | null) ?? null };
  }
  return item;
}
