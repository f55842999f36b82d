import type { PoolClient } from "pg";
import { frontierSwap, resolveBatchStep, summaryRecord, summarySources, validateSummary, wantedMessageIds, type SourceMessage } from "../summary-plan.js";
import type { CommitSummariesResult, CommitSummaryResult, FrontierReplace, NewSummary, SummaryBatchStep, SummaryRecord } from "../types.js";
import { toFrontierItem, toSummary } from "./rows.js";

/**
 * Insert a summary with its lineage and optionally swap it into the frontier,
 * inside the caller's transaction with the conversation row locked. The
 * decisions are summary-plan.ts's; every check (sources, compare-and-swap,
 * coverage) runs before the first write, so a refused publish writes nothing.
 */
export async function commitSummaryPg(c: PoolClient, input: NewSummary, replace?: FrontierReplace): Promise<CommitSummaryResult> {
  validateSummary(input);
  return commitLocked(c, input, replace, await lockConversation(c, input.conversationId));
}

/** `commitSummaries` inside the caller's transaction: each step in order until one is refused (the conversation locked once). */
export async function commitSummariesPg(c: PoolClient, steps: readonly SummaryBatchStep[]): Promise<CommitSummariesResult> {
  const committed: SummaryRecord[] = [];
  const ids: string[] = [];
  let version: number | null = null;
  for (const [k, step] of steps.entries()) {
    const { summary, replace } = resolveBatchStep(step, ids);
    validateSummary(summary);
    version ??= await lockConversation(c, summary.conversationId);
    if (summary.conversationId !== steps[0]!.summary.conversationId) throw new Error("commitSummaries: every step must be of one conversation");
    const res = await commitLocked(c, summary, replace, version);
    if (!res.ok) return { committed, refused: { step: k, reason: res.reason, detail: res.detail } };
    version = res.frontierVersion;
    committed.push(res.summary);
    ids.push(res.summary.id);
  }
  return { committed };
}

/** Lock the conversation's row for the transaction; its frontier version. */
async function lockConversation(c: PoolClient, convId: number): Promise<number> {
  const conv = (await c.query("SELECT frontier_version FROM conversations WHERE id = $1 FOR UPDATE", [convId])).rows[0];
  if (!conv) throw new Error(`no conversation ${convId}`);
  return Number(conv.frontier_version);
}

/** One summary, its conversation locked at frontier `version`: checks, then the writes (the swap in one statement). */
async function commitLocked(c: PoolClient, input: NewSummary, replace: FrontierReplace | undefined, version: number): Promise<CommitSummaryResult> {
  const convId = input.conversationId;
  const sources = summarySources(input, await readSources(c, input));
  if ("ok" in sources) return sources;
  const existing = (await c.query("SELECT * FROM summaries WHERE id = $1", [sources.id])).rows[0];
  let swap = null;
  if (replace) {
    const already = existing !== undefined && (await c.query("SELECT 1 FROM frontier WHERE conversation_id = $1 AND summary_id = $2", [convId, sources.id])).rows.length > 0;
    const run = (await c.query("SELECT * FROM frontier WHERE conversation_id = $1 AND ordinal BETWEEN $2 AND $3 ORDER BY ordinal", [convId, replace.fromOrdinal, replace.toOrdinal])).rows.map(toFrontierItem);
    swap = frontierSwap(replace, sources, run, already);
    if ("ok" in swap) return swap;
  }
  const summary = existing ? toSummary(existing) : await insertSummary(c, summaryRecord(input, sources, Date.now()), sources.messageIds, sources.childIds);
  if (swap?.kind === "replace") {
    // The run's first row becomes the summary, the rest go, and the counters follow: one round trip, not three.
    await c.query(
      `WITH gone AS (DELETE FROM frontier WHERE conversation_id = $1 AND ordinal > $2 AND ordinal <= $3),
            took AS (UPDATE frontier SET message_id = NULL, summary_id = $4, tokens = $5 WHERE conversation_id = $1 AND ordinal = $2)
       UPDATE conversations SET frontier_tokens = frontier_tokens + $6, frontier_count = frontier_count + $7, frontier_version = frontier_version + 1, updated_at = $8
       WHERE id = $1`,
      [convId, swap.fromOrdinal, swap.toOrdinal, summary.id, summary.tokens, summary.tokens - swap.removedTokens, 1 - swap.removedItems, Date.now()],
    );
    version++;
  }
  return { ok: true, summary, frontierVersion: version };
}

/** The source rows of this conversation the summary names (one query). */
async function readSources(c: PoolClient, input: NewSummary): Promise<{ messages?: SourceMessage[]; children?: Map<string, SummaryRecord> }> {
  if (input.kind === "leaf") {
    const { rows } = await c.query("SELECT id, seq, tokens, created_at FROM messages WHERE conversation_id = $1 AND id = ANY($2::bigint[])", [
      input.conversationId,
      wantedMessageIds(input),
    ]);
    return { messages: rows.map((r) => ({ id: Number(r.id), seq: Number(r.seq), tokens: Number(r.tokens), createdAt: Number(r.created_at) })) };
  }
  const { rows } = await c.query("SELECT * FROM summaries WHERE conversation_id = $1 AND id = ANY($2::text[])", [input.conversationId, input.childSummaryIds ?? []]);
  return { children: new Map(rows.map((r) => [String(r.id), toSummary(r)])) };
}

async function insertSummary(c: PoolClient, r: SummaryRecord, messageIds: readonly number[], childIds: readonly string[]): Promise<SummaryRecord> {
  await c.query(
    `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, model, earliest_at, latest_at, first_seq, last_seq, descendant_messages, source_tokens, meta, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (id) DO NOTHING`,
    [r.id, r.conversationId, r.kind, r.depth, r.content, r.tokens, r.level, r.model, r.earliestAt, r.latestAt, r.firstSeq, r.lastSeq,
      r.descendantMessages, r.sourceTokens, r.meta ? JSON.stringify(r.meta) : null, r.createdAt],
  );
  if (messageIds.length) {
    await c.query(
      "INSERT INTO summary_sources (summary_rid, message_id, ordinal) SELECT (SELECT rid FROM summaries WHERE id = $1), m, o - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS t(m, o) ON CONFLICT DO NOTHING",
      [r.id, messageIds],
    );
  } else {
    await c.query("INSERT INTO summary_children (summary_id, child_id, ordinal) SELECT $1, s, o - 1 FROM unnest($2::text[]) WITH ORDINALITY AS t(s, o) ON CONFLICT DO NOTHING", [r.id, childIds]);
  }
  // The row as stored, without reading it back: meta is what its JSON column gives back.
  return { ...r, meta: r.meta ? (JSON.parse(JSON.stringify(r.meta)) as Record<string, unknown>) : null };
}
