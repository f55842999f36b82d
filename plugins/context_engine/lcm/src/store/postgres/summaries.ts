import { createHash } from "node:crypto";
import type { PoolClient } from "pg";
import type { CommitSummaryResult, FrontierItemKey, FrontierReplace, NewSummary } from "../types.js";
import { toFrontierItem, toSummary } from "./rows.js";

function sameKey(a: FrontierItemKey, b: FrontierItemKey): boolean {
  return a.kind === "message" ? b.kind === "message" && a.messageId === b.messageId : b.kind === "summary" && a.summaryId === b.summaryId;
}

interface Span {
  earliest: number;
  latest: number;
  firstSeq: number;
  lastSeq: number;
  descendants: number;
  sourceTokens: number;
}

function validate(input: NewSummary): void {
  if (input.kind !== "leaf" && input.kind !== "condensed") throw new Error(`commitSummary: kind must be "leaf" or "condensed"`);
  if (typeof input.content !== "string" || input.content.length === 0) throw new Error("commitSummary: content must be a non-empty string");
  const m = input.sourceMessageIds?.length ?? 0;
  const c = input.childSummaryIds?.length ?? 0;
  if (input.kind === "leaf" && (m === 0 || c > 0)) throw new Error("commitSummary: a leaf summary covers messages (sourceMessageIds) and no summaries");
  if (input.kind === "condensed" && (c === 0 || m > 0)) throw new Error("commitSummary: a condensed summary covers summaries (childSummaryIds) and no messages");
}

/**
 * Insert a summary with its lineage and optionally swap it into the frontier,
 * inside the caller's transaction with the conversation row locked. Every
 * check (sources, compare-and-swap, coverage) runs before the first write, so
 * a refused publish writes nothing.
 */
export async function commitSummaryPg(c: PoolClient, input: NewSummary, replace?: FrontierReplace): Promise<CommitSummaryResult> {
  validate(input);
  const convId = input.conversationId;
  const conv = (await c.query("SELECT frontier_version FROM conversations WHERE id = $1 FOR UPDATE", [convId])).rows[0];
  if (!conv) throw new Error(`no conversation ${convId}`);
  const span: Span = { earliest: Infinity, latest: -Infinity, firstSeq: Infinity, lastSeq: -Infinity, descendants: 0, sourceTokens: 0 };
  let sources: string[];
  let messageIds: number[] = [];
  const childIds = [...(input.childSummaryIds ?? [])];
  if (input.kind === "leaf") {
    const wanted = [...new Set(input.sourceMessageIds)];
    const rows = (await c.query("SELECT id, seq, tokens, created_at FROM messages WHERE conversation_id = $1 AND id = ANY($2::bigint[]) ORDER BY seq", [convId, wanted])).rows;
    if (rows.length !== wanted.length) {
      const found = new Set(rows.map((r) => Number(r.id)));
      return { ok: false, reason: "unknown_source", detail: `message ${wanted.find((id) => !found.has(id))} is not in conversation ${convId}` };
    }
    for (const r of rows) {
      span.earliest = Math.min(span.earliest, Number(r.created_at));
      span.latest = Math.max(span.latest, Number(r.created_at));
      span.firstSeq = Math.min(span.firstSeq, r.seq);
      span.lastSeq = Math.max(span.lastSeq, r.seq);
      span.descendants++;
      span.sourceTokens += r.tokens;
    }
    messageIds = rows.map((r) => Number(r.id));
    sources = messageIds.map((id) => `m${id}`);
  } else {
    const rows = new Map((await c.query("SELECT * FROM summaries WHERE conversation_id = $1 AND id = ANY($2::text[])", [convId, childIds])).rows.map((r) => [r.id as string, toSummary(r)]));
    let maxDepth = -1;
    for (const id of childIds) {
      const s = rows.get(id);
      if (!s) return { ok: false, reason: "unknown_source", detail: `summary ${id} is not in conversation ${convId}` };
      maxDepth = Math.max(maxDepth, s.depth);
      span.earliest = Math.min(span.earliest, s.earliestAt);
      span.latest = Math.max(span.latest, s.latestAt);
      span.firstSeq = Math.min(span.firstSeq, s.firstSeq);
      span.lastSeq = Math.max(span.lastSeq, s.lastSeq);
      span.descendants += s.descendantMessages;
      span.sourceTokens += s.sourceTokens;
    }
    if (input.depth <= maxDepth) throw new Error(`commitSummary: a condensed summary's depth (${input.depth}) must exceed its children's (${maxDepth})`);
    sources = childIds;
  }
  // The same id as the SQLite store derives: conversation, kind, depth, sources and content.
  const id = `sum_${createHash("sha256").update(`${convId}\u0000${input.kind}\u0000${input.depth}\u0000${sources.join(",")}\u0000${input.content}`).digest("hex").slice(0, 16)}`;
  const existing = (await c.query("SELECT * FROM summaries WHERE id = $1", [id])).rows[0];
  let version = Number(conv.frontier_version);
  let run: ReturnType<typeof toFrontierItem>[] = [];
  if (replace) {
    const already = (await c.query("SELECT 1 FROM frontier WHERE conversation_id = $1 AND summary_id = $2", [convId, id])).rows.length > 0;
    if (already && existing) return { ok: true, summary: toSummary(existing), frontierVersion: version };
    run = (await c.query("SELECT * FROM frontier WHERE conversation_id = $1 AND ordinal BETWEEN $2 AND $3 ORDER BY ordinal", [convId, replace.fromOrdinal, replace.toOrdinal])).rows.map(toFrontierItem);
    if (run.length === 0 || run.length !== replace.expect.length || !run.every((r, i) => sameKey(r, replace.expect[i]!))) {
      return { ok: false, reason: "frontier_changed", detail: `frontier ordinals ${replace.fromOrdinal}..${replace.toOrdinal} no longer hold the expected ${replace.expect.length} items` };
    }
    const covered = new Set(input.kind === "leaf" ? messageIds.map((m) => `m${m}`) : childIds.map((s) => `s${s}`));
    const stray = run.find((r) => !covered.has(r.kind === "message" ? `m${r.messageId}` : `s${r.summaryId}`));
    if (stray) return { ok: false, reason: "not_covered", detail: `frontier ordinal ${stray.ordinal} is not covered by the summary` };
  }
  if (!existing) {
    await c.query(
      `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, model, earliest_at, latest_at, first_seq, last_seq, descendant_messages, source_tokens, meta, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (id) DO NOTHING`,
      [id, convId, input.kind, input.depth, input.content, Math.max(0, Math.round(input.tokens)), input.level ?? "normal", input.model ?? null,
        span.earliest, span.latest, span.firstSeq, span.lastSeq, span.descendants, span.sourceTokens, input.meta ? JSON.stringify(input.meta) : null, input.createdAt ?? Date.now()],
    );
    if (input.kind === "leaf") {
      await c.query("INSERT INTO summary_messages (summary_id, message_id, ordinal) SELECT $1, m, o - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS t(m, o) ON CONFLICT DO NOTHING", [id, messageIds]);
    } else {
      await c.query("INSERT INTO summary_children (summary_id, child_id, ordinal) SELECT $1, s, o - 1 FROM unnest($2::text[]) WITH ORDINALITY AS t(s, o) ON CONFLICT DO NOTHING", [id, childIds]);
    }
  }
  const summary = toSummary((await c.query("SELECT * FROM summaries WHERE id = $1", [id])).rows[0]);
  if (replace) {
    const removed = run.reduce((a, r) => a + r.tokens, 0);
    await c.query("DELETE FROM frontier WHERE conversation_id = $1 AND ordinal BETWEEN $2 AND $3", [convId, replace.fromOrdinal, replace.toOrdinal]);
    await c.query("INSERT INTO frontier (conversation_id, ordinal, summary_id, tokens) VALUES ($1, $2, $3, $4)", [convId, replace.fromOrdinal, id, summary.tokens]);
    await c.query(
      "UPDATE conversations SET frontier_tokens = frontier_tokens + $2, frontier_count = frontier_count + $3, frontier_version = frontier_version + 1, updated_at = $4 WHERE id = $1",
      [convId, summary.tokens - removed, 1 - run.length, Date.now()],
    );
    version++;
  }
  return { ok: true, summary, frontierVersion: version };
}
