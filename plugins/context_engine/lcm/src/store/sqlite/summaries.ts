import { frontierSwap, resolveBatchStep, summaryRecord, summarySources, validateSummary, wantedMessageIds, type SourceMessage } from "../summary-plan.js";
import type { CommitSummariesResult, CommitSummaryResult, FrontierReplace, NewSummary, SummaryBatchStep, SummaryKind, SummaryLineage, SummaryRecord } from "../types.js";
import { requireConversation, type SqliteContext } from "./context.js";
import { toFrontierItem, toSummary, type FrontierRow, type SummaryRow } from "./rows.js";

/**
 * `commitSummary` inside the caller's (immediate) transaction: read the sources,
 * the existing row and the frontier run, let summary-plan.ts decide, then write.
 */
export function commitSummaryRows(ctx: SqliteContext, input: NewSummary, replace?: FrontierReplace): CommitSummaryResult {
  validateSummary(input);
  const conv = requireConversation(ctx, input.conversationId);
  const sources = summarySources(input, readSources(ctx, input));
  if ("ok" in sources) return sources;
  const existingRow = ctx.s.summaryById.get(sources.id) as SummaryRow | undefined;
  let swap = null;
  if (replace) {
    const run = (ctx.s.frontierRange.all(conv.id, replace.fromOrdinal, replace.toOrdinal) as FrontierRow[]).map(toFrontierItem);
    const already = existingRow !== undefined && ctx.s.frontierHasSummary.get(conv.id, sources.id) !== undefined;
    swap = frontierSwap(replace, sources, run, already);
    if ("ok" in swap) return swap;
  }
  const summary = existingRow ? toSummary(existingRow) : insertSummary(ctx, summaryRecord(input, sources, Date.now()), sources.messageIds, sources.childIds);
  let version = conv.frontier_version;
  if (swap?.kind === "replace") {
    ctx.s.deleteFrontierRange.run(conv.id, swap.fromOrdinal, swap.toOrdinal);
    ctx.s.insertFrontier.run(conv.id, swap.fromOrdinal, null, summary.id, summary.tokens);
    ctx.s.bumpFrontier.run(summary.tokens - swap.removedTokens, 1 - swap.removedItems, Date.now(), conv.id);
    version++;
  }
  return { ok: true, summary, frontierVersion: version };
}

/** `commitSummaries` inside the caller's transaction: each step in order until one is refused. */
export function commitSummariesRows(ctx: SqliteContext, steps: readonly SummaryBatchStep[]): CommitSummariesResult {
  const committed: SummaryRecord[] = [];
  const ids: string[] = [];
  for (const [k, step] of steps.entries()) {
    const { summary, replace } = resolveBatchStep(step, ids);
    const res = commitSummaryRows(ctx, summary, replace);
    if (!res.ok) return { committed, refused: { step: k, reason: res.reason, detail: res.detail } };
    committed.push(res.summary);
    ids.push(res.summary.id);
  }
  return { committed };
}

function readSources(ctx: SqliteContext, input: NewSummary) {
  if (input.kind === "leaf") {
    const messages: SourceMessage[] = [];
    const rows = ctx.s.messageMetaByIds.all(JSON.stringify(wantedMessageIds(input))) as Array<{ id: number; conversation_id: number; seq: number; tokens: number; created_at: number }>;
    for (const r of rows) {
      if (r.conversation_id === input.conversationId) messages.push({ id: r.id, seq: r.seq, tokens: r.tokens, createdAt: r.created_at });
    }
    return { messages };
  }
  const children = new Map<string, SummaryRecord>();
  for (const id of input.childSummaryIds ?? []) {
    const r = ctx.s.summaryById.get(id) as SummaryRow | undefined;
    if (r) children.set(id, toSummary(r));
  }
  return { children };
}

function insertSummary(ctx: SqliteContext, r: SummaryRecord, messageIds: readonly number[], childIds: readonly string[]): SummaryRecord {
  // The rowid keys the summary's sources and its full-text row (schema.ts, version 9).
  const rid = ctx.s.insertSummary.run(
    r.id, r.conversationId, r.kind, r.depth, r.content, r.tokens, r.level, r.model, r.earliestAt, r.latestAt, r.firstSeq, r.lastSeq,
    r.descendantMessages, r.sourceTokens, r.meta ? JSON.stringify(r.meta) : null, r.createdAt,
  ).lastInsertRowid;
  if (messageIds.length) ctx.s.insertSummarySources.run(rid, JSON.stringify(messageIds));
  if (childIds.length) ctx.s.insertSummaryChildren.run(r.id, JSON.stringify(childIds));
  ctx.s.insertSummaryFts.run(rid, r.content, `c${r.conversationId}`);
  return toSummary(ctx.s.summaryById.get(r.id) as SummaryRow);
}

export function getSummary(ctx: SqliteContext, id: string): SummaryRecord | null {
  const r = ctx.s.summaryById.get(id) as SummaryRow | undefined;
  return r ? toSummary(r) : null;
}

export function getSummaries(ctx: SqliteContext, ids: readonly string[]): SummaryRecord[] {
  const out: SummaryRecord[] = [];
  for (const id of ids) {
    const s = getSummary(ctx, id);
    if (s) out.push(s);
  }
  return out;
}

export function listSummaries(ctx: SqliteContext, conversationId: number, options: { depth?: number; kind?: SummaryKind }): SummaryRecord[] {
  let rows = ctx.s.summariesOf.all(conversationId) as SummaryRow[];
  if (options.depth !== undefined) rows = rows.filter((r) => r.depth === options.depth);
  if (options.kind !== undefined) rows = rows.filter((r) => r.kind === options.kind);
  return rows.map(toSummary);
}

export function lineage(ctx: SqliteContext, summaryId: string): SummaryLineage {
  return {
    messageIds: (ctx.s.summaryMessages.all(summaryId) as Array<{ message_id: number }>).map((r) => r.message_id),
    childSummaryIds: (ctx.s.summaryChildren.all(summaryId) as Array<{ child_id: string }>).map((r) => r.child_id),
    parentSummaryIds: (ctx.s.summaryParents.all(summaryId) as Array<{ summary_id: string }>).map((r) => r.summary_id),
  };
}

export function descendantMessageIds(ctx: SqliteContext, summaryId: string): number[] {
  return (ctx.s.descendants.all(summaryId) as Array<{ message_id: number }>).map((r) => r.message_id);
}

export function summariesCoveringMessage(ctx: SqliteContext, messageId: number): string[] {
  return (ctx.s.coveringSummaries.all(messageId) as Array<{ summary_id: string }>).map((r) => r.summary_id);
}
