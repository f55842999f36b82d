import type { Frontier, FrontierItem, FrontierItemKey } from "../types.js";
import { requireConversation, type SqliteContext } from "./context.js";
import { stmt } from "./statements.js";
import { toFrontierItem, toShapedFrontierItem, type FrontierRow, type FrontierShapeRow, type SummaryRow } from "./rows.js";

/** The active-context frontier of the SQLite store. */

export function getFrontier(ctx: SqliteContext, conversationId: number, shapes: boolean, afterOrdinal = -1): Frontier {
  const conv = requireConversation(ctx, conversationId);
  const items = shapes
    ? (ctx.s.frontierShapes.all(conversationId, afterOrdinal) as FrontierShapeRow[]).map(toShapedFrontierItem)
    : (ctx.s.frontierAll.all(conversationId, afterOrdinal) as FrontierRow[]).map(toFrontierItem);
  return { conversationId, version: conv.frontier_version, tokens: conv.frontier_tokens, count: conv.frontier_count, items };
}

export function getFrontierTail(ctx: SqliteContext, conversationId: number, maxTokens: number, minItems: number): FrontierItem[] {
  const out: FrontierItem[] = [];
  let used = 0;
  for (const r of ctx.s.frontierDesc.iterate(conversationId) as Iterable<FrontierRow>) {
    if (out.length >= minItems && used + r.tokens > maxTokens) break;
    used += r.tokens;
    out.push(toFrontierItem(r));
  }
  return out.reverse();
}

/** Inside the caller's transaction. */
export function setFrontierRows(
  ctx: SqliteContext,
  conversationId: number,
  items: readonly FrontierItemKey[],
  expectedVersion: number | undefined,
): { ok: true; version: number } | { ok: false; version: number } {
  const conv = requireConversation(ctx, conversationId);
  if (expectedVersion !== undefined && expectedVersion !== conv.frontier_version) return { ok: false, version: conv.frontier_version };
  const resolved = items.map((k) => resolveItem(ctx, conversationId, k));
  ctx.s.clearFrontier.run(conversationId);
  let tokens = 0;
  resolved.forEach((r, i) => {
    ctx.s.insertFrontier.run(conversationId, i, r.messageId, r.summaryId, r.tokens);
    tokens += r.tokens;
  });
  ctx.s.setFrontierCounters.run(tokens, resolved.length, Date.now(), conversationId);
  return { ok: true, version: conv.frontier_version + 1 };
}

/** Inside the caller's transaction. */
export function appendToFrontierRows(ctx: SqliteContext, conversationId: number, items: readonly FrontierItemKey[]): number {
  const conv = requireConversation(ctx, conversationId);
  if (items.length === 0) return conv.frontier_version;
  let ordinal = ((ctx.s.maxOrdinal.get(conversationId) as { m: number | null }).m ?? -1) + 1;
  let tokens = 0;
  for (const k of items) {
    const r = resolveItem(ctx, conversationId, k);
    ctx.s.insertFrontier.run(conversationId, ordinal++, r.messageId, r.summaryId, r.tokens);
    tokens += r.tokens;
  }
  ctx.s.bumpFrontier.run(tokens, items.length, Date.now(), conversationId);
  return conv.frontier_version + 1;
}

function resolveItem(ctx: SqliteContext, conversationId: number, k: FrontierItemKey): { messageId: number | null; summaryId: string | null; tokens: number } {
  if (k.kind === "message") {
    const r = ctx.s.messageMeta.get(k.messageId) as { conversation_id: number; tokens: number } | undefined;
    if (!r || r.conversation_id !== conversationId) throw new Error(`frontier: message ${k.messageId} is not in conversation ${conversationId}`);
    return { messageId: k.messageId, summaryId: null, tokens: r.tokens };
  }
  const s = ctx.s.summaryById.get(k.summaryId) as SummaryRow | undefined;
  if (!s || s.conversation_id !== conversationId) throw new Error(`frontier: summary ${k.summaryId} is not in conversation ${conversationId}`);
  return { messageId: null, summaryId: k.summaryId, tokens: s.tokens };
}

export function inFrontier(ctx: SqliteContext, conversationId: number, item: FrontierItemKey): boolean {
  const [column, id] = item.kind === "message" ? ["message_id", item.messageId] : ["summary_id", item.summaryId];
  return stmt(ctx.db, `SELECT 1 FROM frontier WHERE conversation_id = ? AND ${column} = ? LIMIT 1`).get(conversationId, id) !== undefined;
}
