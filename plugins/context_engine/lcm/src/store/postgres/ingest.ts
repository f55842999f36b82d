import type { Message } from "@context-engine/core";
import type { PoolClient } from "pg";
import type { Redactor } from "../../redact/types.js";
import { alignTranscript } from "../align.js";
import { encodeMessage, type EncodedMessage } from "../codec.js";
import type { IngestOptions, IngestResult } from "../types.js";

export interface IngestDeps {
  redactor: Redactor;
  countTokens: (m: Message) => number;
}

/**
 * Idempotent ingest. The conversation row is locked for the transaction, so
 * concurrent writers of one conversation (other processes, other machines)
 * take turns: the second one aligns against what the first stored and
 * appends only what is still new.
 */
export async function ingestPg(
  c: PoolClient,
  deps: IngestDeps,
  conversationId: number,
  messages: readonly Message[],
  options: IngestOptions,
): Promise<IngestResult> {
  const conv = (await c.query("SELECT * FROM conversations WHERE id = $1 FOR UPDATE", [conversationId])).rows[0];
  if (!conv) throw new Error(`no conversation ${conversationId}`);
  const count = Number(conv.message_count);
  const n = messages.length;
  const ids: Array<number | null> = new Array<number | null>(n).fill(null);
  const rejected: Array<{ index: number; reason: string }> = [];
  const encoded = new Array<EncodedMessage | null | undefined>(n);
  let synthetic = 0;
  const encode = (i: number): EncodedMessage | null => {
    if (encoded[i] !== undefined) return encoded[i]!;
    const m = messages[i];
    let e: EncodedMessage | null = null;
    if (m === null || typeof m !== "object" || Array.isArray(m)) rejected.push({ index: i, reason: "not a message object" });
    else if (options.isSynthetic?.(m, i)) synthetic++;
    else {
      try {
        e = encodeMessage(m, deps.redactor);
      } catch (error) {
        rejected.push({ index: i, reason: (error as Error).message });
      }
    }
    encoded[i] = e;
    return e;
  };

  let start = 0;
  let alreadyStored = 0;
  let alignment: IngestResult["alignment"] = "append";
  if ((options.mode ?? "align") === "align") {
    if (count === 0) alignment = "empty-store";
    else {
      const tail = (await c.query<{ id: string; hash: string }>("SELECT id, hash FROM messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 1024", [conversationId])).rows;
      const out = alignTranscript({
        length: n,
        storedCount: count,
        inputHash: (i) => encode(i)?.hashHex ?? null,
        storedHash: (k) => tail[k]?.hash ?? null,
        mapLimit: 256,
        isBoundaryRole: (i) => {
          const role = (messages[i] as { role?: unknown } | null)?.role;
          return role === "system" || role === "developer";
        },
      });
      if (out.anchor >= 0) {
        alignment = "anchored";
        start = out.anchor + 1;
        for (const [i, k] of out.matched) ids[i] = tail[k] ? Number(tail[k]!.id) : null;
        alreadyStored = out.matched.size;
      } else {
        // No consistent anchor: append after the last input already stored (by hash, newest copy).
        const hashes = [...new Set(messages.map((_, i) => encode(i)?.hashHex).filter((h): h is string => !!h))];
        const known = new Map(
          (await c.query<{ hash: string; id: string }>("SELECT hash, max(id) AS id FROM messages WHERE conversation_id = $1 AND hash = ANY($2::text[]) GROUP BY hash", [conversationId, hashes])).rows.map(
            (r) => [r.hash, Number(r.id)],
          ),
        );
        let last = -1;
        for (let i = n - 1; i >= 0; i--) {
          const id = known.get(encode(i)?.hashHex ?? "");
          if (id !== undefined) {
            last = i;
            ids[i] = id;
            alreadyStored++;
            break;
          }
        }
        alignment = last >= 0 ? "hash-fallback" : "no-overlap";
        start = last + 1;
      }
    }
  }
  return appendNew(c, deps, conv, messages, start, { ids, rejected, encode, alreadyStored, alignment, options, synthetic: () => synthetic });
}

async function appendNew(
  c: PoolClient,
  deps: IngestDeps,
  conv: Record<string, string | number>,
  messages: readonly Message[],
  start: number,
  s: {
    ids: Array<number | null>;
    rejected: Array<{ index: number; reason: string }>;
    encode: (i: number) => EncodedMessage | null;
    alreadyStored: number;
    alignment: IngestResult["alignment"];
    options: IngestOptions;
    synthetic: () => number;
  },
): Promise<IngestResult> {
  const conversationId = Number(conv.id);
  const now = s.options.now ?? Date.now();
  const toFrontier = s.options.appendToFrontier ?? true;
  let seq = Number(conv.message_count);
  let ordinal = Number((await c.query("SELECT COALESCE(max(ordinal), -1) + 1 AS o FROM frontier WHERE conversation_id = $1", [conversationId])).rows[0].o);
  let firstSeq: number | null = null;
  let appended = 0;
  let tokens = 0;
  let bytes = 0;
  const redactions: Record<string, number> = {};
  for (let i = start; i < messages.length; i++) {
    const e = s.encode(i);
    if (!e) continue;
    const t = deps.countTokens(e.message);
    // PostgreSQL text cannot hold NUL; the message itself keeps it (escaped in json).
    const body = e.searchText.replace(/\u0000/g, "");
    const r = await c.query<{ id: string }>(
      `INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash, tool_call_ids, tool_call_id, redacted)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [conversationId, seq, e.role, JSON.stringify(e.message), body, t, s.options.timestamps?.[i] ?? now, e.hashHex, e.toolCallIds, e.toolCallId, e.redacted],
    );
    const id = Number(r.rows[0]!.id);
    if (toFrontier) await c.query("INSERT INTO frontier (conversation_id, ordinal, message_id, tokens) VALUES ($1, $2, $3, $4)", [conversationId, ordinal++, id, t]);
    for (const [k, v] of Object.entries(e.redactions)) redactions[k] = (redactions[k] ?? 0) + v;
    s.ids[i] = id;
    firstSeq ??= seq;
    seq++;
    appended++;
    tokens += t;
    bytes += Buffer.byteLength(body);
  }
  if (appended > 0) {
    await c.query(
      `UPDATE conversations SET message_count = message_count + $2, last_seq = $3, message_tokens = message_tokens + $4, text_bytes = text_bytes + $5,
         updated_at = $6, frontier_tokens = frontier_tokens + $7, frontier_count = frontier_count + $8, frontier_version = frontier_version + $9 WHERE id = $1`,
      [conversationId, appended, seq - 1, tokens, bytes, Date.now(), toFrontier ? tokens : 0, toFrontier ? appended : 0, toFrontier ? 1 : 0],
    );
  }
  return {
    conversationId,
    appended,
    alreadyStored: s.alreadyStored,
    synthetic: s.synthetic(),
    ids: s.ids,
    firstSeq,
    lastSeq: appended ? seq - 1 : null,
    alignment: s.alignment,
    rejected: s.rejected.sort((a, b) => a.index - b.index),
    redactions,
  };
}
