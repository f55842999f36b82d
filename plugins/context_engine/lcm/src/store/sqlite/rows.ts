import type { Role } from "@context-engine/core";
import type { ConversationRecord, FrontierItem, SummaryKind, SummaryLevel, SummaryRecord } from "../types.js";

/** SQLite rows and their mapping to records. */

export interface ConversationRow {
  id: number;
  session_id: string;
  created_at: number;
  updated_at: number;
  message_count: number;
  message_tokens: number;
  text_bytes: number;
  frontier_version: number;
  frontier_tokens: number;
  frontier_count: number;
}

export interface SummaryRow {
  id: string;
  conversation_id: number;
  kind: SummaryKind;
  depth: number;
  content: string;
  tokens: number;
  level: SummaryLevel;
  model: string | null;
  earliest_at: number;
  latest_at: number;
  first_seq: number;
  last_seq: number;
  descendant_messages: number;
  source_tokens: number;
  meta: string | null;
  created_at: number;
}

export interface FrontierRow {
  ordinal: number;
  message_id: number | null;
  summary_id: string | null;
  tokens: number;
}

/** A frontier row with its message's shape (`frontierShapes`): role, tool_call_id, call ids joined by U+001F. */
export interface FrontierShapeRow extends FrontierRow {
  role: Role | null;
  tool_call_id: string | null;
  calls: string | null;
}

/** Separator of the call ids `frontierShapes` concatenates (never part of an id a host sends). */
export const CALL_ID_SEPARATOR = "\u001f";

export function toConversation(r: ConversationRow): ConversationRecord {
  return {
    id: r.id,
    sessionId: r.session_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    messageCount: r.message_count,
    lastSeq: r.message_count - 1,
    messageTokens: r.message_tokens,
    frontierVersion: r.frontier_version,
    frontierTokens: r.frontier_tokens,
    frontierCount: r.frontier_count,
  };
}

export function toSummary(r: SummaryRow): SummaryRecord {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    kind: r.kind,
    depth: r.depth,
    content: r.content,
    tokens: r.tokens,
    level: r.level,
    model: r.model,
    earliestAt: r.earliest_at,
    latestAt: r.latest_at,
    firstSeq: r.first_seq,
    lastSeq: r.last_seq,
    descendantMessages: r.descendant_messages,
    sourceTokens: r.source_tokens,
    meta: r.meta ? (JSON.parse(r.meta) as Record<string, unknown>) : null,
    createdAt: r.created_at,
  };
}

export function toFrontierItem(r: FrontierRow): FrontierItem {
  return r.message_id !== null
    ? { kind: "message", messageId: r.message_id, ordinal: r.ordinal, tokens: r.tokens }
    : { kind: "summary", summaryId: r.summary_id as string, ordinal: r.ordinal, tokens: r.tokens };
}

export function toShapedFrontierItem(r: FrontierShapeRow): FrontierItem {
  const item = toFrontierItem(r);
  if (item.kind === "message" && r.role !== null) {
    item.shape = { role: r.role, toolCallIds: r.calls ? r.calls.split(CALL_ID_SEPARATOR) : [], toolCallId: r.tool_call_id };
  }
  return item;
}
