import {
  frontierSwap,
  resolveBatchStep,
  summaryId,
  summaryRecord,
  summarySources,
  validateSummary,
  wantedMessageIds,
  type FrontierSwap,
  type SourceMessage,
  type SummarySources,
  type SummarySpan,
} from "../summary-plan.js";
import type { CommitSummariesResult, CommitSummaryResult, FrontierItem, FrontierReplace, NewSummary, SummaryBatchStep, SummaryKind, SummaryLineage, SummaryRecord } from "../types.js";
import { requireConversation, type SqliteContext } from "./context.js";
import { toFrontierItem, toSummary, type FrontierRow, type SummaryRow } from "./rows.js";

/**
 * `commitSummary` inside the caller's (immediate) transaction: read the sources,
 * the existing row and the frontier run, let summary-plan.ts decide, then write.
 */
export function commitSummaryRows(ctx: SqliteContext, input: NewSummary, replace?: FrontierReplace): CommitSummaryResult {
  validateSummary(input);
  const conv = requireConversation(ctx, input.conversationId);
  const fast = replace && input.kind === "leaf" ? leafRunAsPlanned(ctx, input, replace) : null;
  const leafRun = replace && input.kind === "leaf" && !fast ? readLeafRun(ctx, input, replace) : null;
  const sources = fast?.sources ?? summarySources(input, leafRun?.found ?? readSources(ctx, input));
  if ("ok" in sources) return sources;
  const existingRow = ctx.s.summaryById.get(sources.id) as SummaryRow | undefined;
  let swap: ReturnType<typeof frontierSwap> | null = null;
  if (fast) {
    const already = existingRow !== undefined && ctx.s.frontierHasSummary.get(conv.id, sources.id) !== undefined;
    swap = already ? { kind: "already" } : fast.swap;
  } else if (replace) {
    const run = leafRun?.run ?? (ctx.s.frontierRange.all(conv.id, replace.fromOrdinal, replace.toOrdinal) as FrontierRow[]).map(toFrontierItem);
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

interface LeafRunFacts {
  n: number;
  messages: number;
  ids: string | null;
  run_tokens: number;
  own: number;
  back: number;
  first_seq: number;
  last_seq: number;
  earliest: number;
  latest: number;
  source_tokens: number;
}

/**
 * The common case of a leaf's publish, checked in one aggregate statement: the run holds exactly the summary's
 * messages, in the order given, all of this conversation, in seq order. Then its sources and swap are what
 * `summarySources` and `frontierSwap` would compute from the rows, without reading the rows out. Anything else
 * (null) takes the row-by-row path, which names the cause of a refusal.
 */
function leafRunAsPlanned(ctx: SqliteContext, input: NewSummary, replace: FrontierReplace): { sources: SummarySources; swap: FrontierSwap } | null {
  const ids = input.sourceMessageIds ?? [];
  const expect = replace.expect;
  if (ids.length === 0 || ids.length !== expect.length) return null;
  for (let i = 0; i < ids.length; i++) {
    const e = expect[i]!;
    if (e.kind !== "message" || e.messageId !== ids[i]) return null;
  }
  const f = ctx.s.leafRunFacts.get(input.conversationId, replace.fromOrdinal, replace.toOrdinal) as LeafRunFacts;
  const n = ids.length;
  // A duplicate id in the list cannot match a run of distinct frontier rows of the same length and ids.
  if (f.n !== n || f.messages !== n || f.own !== n || f.back !== 0 || f.ids !== ids.join(",")) return null;
  const span: SummarySpan = {
    earliestAt: f.earliest,
    latestAt: f.latest,
    firstSeq: f.first_seq,
    lastSeq: f.last_seq,
    descendantMessages: n,
    sourceTokens: f.source_tokens,
  };
  const id = summaryId(input.conversationId, "leaf", input.depth, ids.map((m) => `m${m}`), input.content);
  return {
    sources: { id, span, messageIds: [...ids], childIds: [] },
    swap: { kind: "replace", fromOrdinal: replace.fromOrdinal, toOrdinal: replace.toOrdinal, removedItems: n, removedTokens: f.run_tokens },
  };
}

interface RunSourceRow extends FrontierRow {
  m_conversation_id: number | null;
  m_seq: number | null;
  m_tokens: number | null;
  m_created_at: number | null;
}

/**
 * A leaf that replaces a run: the run and its messages read in one statement. What `readSources` would
 * find (the wanted messages of this conversation) is taken from it only when every wanted message is in
 * the run; otherwise null, and the caller reads both apart (so a refusal names the same cause).
 */
function readLeafRun(ctx: SqliteContext, input: NewSummary, replace: FrontierReplace): { run: FrontierItem[]; found: { messages: SourceMessage[] } } | null {
  const rows = ctx.s.frontierRangeSources.all(input.conversationId, replace.fromOrdinal, replace.toOrdinal) as RunSourceRow[];
  const byId = new Map<number, RunSourceRow>();
  for (const r of rows) if (r.message_id !== null) byId.set(r.message_id, r);
  const messages: SourceMessage[] = [];
  for (const id of wantedMessageIds(input)) {
    const r = byId.get(id);
    if (!r || r.m_seq === null) return null;
    // The run is this conversation's frontier, but a row's message is checked all the same, as readSources does.
    if (r.m_conversation_id === input.conversationId) messages.push({ id, seq: r.m_seq, tokens: r.m_tokens!, createdAt: r.m_created_at! });
  }
  return { run: rows.map(toFrontierItem), found: { messages } };
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
  // The record as stored, without reading the row back: meta is what its JSON column gives back.
  return { ...r, meta: r.meta ? (JSON.parse(JSON.stringify(r.meta)) as Record<string, unknown>) : null };
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
