import { decodeMessage, FLAG_HAS_PARTS, FLAG_REDACTED, type MessageRow, type PartRow } from "../codec.js";
import type { MessageRange, StoredMessage } from "../types.js";
import { payloadText, type SqliteContext } from "./context.js";

/** Message reads of the SQLite store: rows hydrated back into OpenAI messages. */

export function hydrate(ctx: SqliteContext, row: MessageRow): StoredMessage {
  const text = row.text ?? (row.payload ? payloadText(ctx, row.payload) : "");
  let parts: Array<PartRow & { resolvedBody: string | null }> = [];
  if (row.flags & FLAG_HAS_PARTS) {
    parts = (ctx.s.partsOf.all(row.id) as PartRow[]).map((p) => ({
      ...p,
      resolvedBody: p.body ?? (p.payload ? payloadText(ctx, p.payload) : null),
    }));
  }
  const d = decodeMessage(row, text, parts);
  return {
    id: row.id,
    conversationId: row.conversation_id,
    seq: row.seq,
    role: row.role,
    message: d.message,
    text: d.callText ? text + d.callText : text,
    tokens: row.tokens,
    createdAt: row.created_at,
    hash: row.hash.toString("hex"),
    toolCallIds: d.toolCallIds,
    toolCallId: row.tool_call_id,
    redacted: (row.flags & FLAG_REDACTED) !== 0,
  };
}

export function getMessage(ctx: SqliteContext, id: number): StoredMessage | null {
  const r = ctx.s.messageById.get(id) as MessageRow | undefined;
  return r ? hydrate(ctx, r) : null;
}

export function getMessagesByIds(ctx: SqliteContext, ids: readonly number[]): StoredMessage[] {
  if (ids.length <= 1) return ids.flatMap((id) => getMessage(ctx, id) ?? []);
  const rows = new Map<number, MessageRow>();
  for (const r of ctx.s.messagesByIds.all(JSON.stringify(ids)) as MessageRow[]) rows.set(r.id, r);
  // In the order asked (ids missing are left out, as one read per id did).
  const out: StoredMessage[] = [];
  for (const id of ids) {
    const r = rows.get(id);
    if (r) out.push(hydrate(ctx, r));
  }
  return out;
}

export function getMessages(ctx: SqliteContext, conversationId: number, range: MessageRange): StoredMessage[] {
  const from = range.fromSeq ?? 0;
  const to = range.toSeq ?? Number.MAX_SAFE_INTEGER;
  const limit = range.limit ?? -1;
  const rows = (range.reverse ? ctx.s.rangeDesc : ctx.s.rangeAsc).all(conversationId, from, to, limit) as MessageRow[];
  return rows.map((r) => hydrate(ctx, r));
}

export function getMessageBySeq(ctx: SqliteContext, conversationId: number, seq: number): StoredMessage | null {
  const r = ctx.s.messageBySeq.get(conversationId, seq) as MessageRow | undefined;
  return r ? hydrate(ctx, r) : null;
}

export function tokensInRange(ctx: SqliteContext, conversationId: number, fromSeq: number, toSeq: number): number {
  return (ctx.s.tokensInRange.get(conversationId, fromSeq, toSeq) as { t: number | null }).t ?? 0;
}

export function toolExchange(ctx: SqliteContext, conversationId: number, toolCallId: string): StoredMessage[] {
  const out: StoredMessage[] = [];
  const call = ctx.s.callMessage.get(toolCallId, conversationId) as MessageRow | undefined;
  if (call) out.push(hydrate(ctx, call));
  for (const r of ctx.s.toolResults.all(conversationId, toolCallId) as MessageRow[]) out.push(hydrate(ctx, r));
  return out;
}
