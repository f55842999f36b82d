import { createHash } from "node:crypto";
import type { CommitSummaryResult, FrontierItem, FrontierItemKey, FrontierReplace, NewSummary, SummaryBatchStep, SummaryRecord } from "./types.js";

/**
 * The dialect-free half of `commitSummary`: validation, the span computed from
 * the source rows, the summary id, and the compare-and-swap / coverage
 * decision over the frontier run. Each driver reads the rows these ask for
 * (inside its transaction, the conversation locked) and writes the outcome;
 * every check runs before the first write, so a refused publish writes nothing.
 */

/** A leaf's source message as read from the store (only those of the summary's conversation). */
export interface SourceMessage {
  id: number;
  seq: number;
  tokens: number;
  createdAt: number;
}

/** The span a summary covers, computed from its sources. */
export interface SummarySpan {
  earliestAt: number;
  latestAt: number;
  firstSeq: number;
  lastSeq: number;
  descendantMessages: number;
  sourceTokens: number;
}

export interface SummarySources {
  id: string;
  span: SummarySpan;
  /** Leaf: message ids in seq order (duplicates dropped); condensed: child ids as given. */
  messageIds: number[];
  childIds: string[];
}

type Refused = Extract<CommitSummaryResult, { ok: false }>;

/** Throws on a malformed summary (a programming error, not a lost race). */
export function validateSummary(input: NewSummary): void {
  if (input.kind !== "leaf" && input.kind !== "condensed") throw new Error(`commitSummary: kind must be "leaf" or "condensed"`);
  if (typeof input.content !== "string" || input.content.length === 0) throw new Error("commitSummary: content must be a non-empty string");
  const m = input.sourceMessageIds?.length ?? 0;
  const c = input.childSummaryIds?.length ?? 0;
  if (input.kind === "leaf" && (m === 0 || c > 0)) throw new Error("commitSummary: a leaf summary covers messages (sourceMessageIds) and no summaries");
  if (input.kind === "condensed" && (c === 0 || m > 0)) throw new Error("commitSummary: a condensed summary covers summaries (childSummaryIds) and no messages");
}

/** The ids a leaf's driver must read (each once). */
export function wantedMessageIds(input: NewSummary): number[] {
  return [...new Set(input.sourceMessageIds ?? [])];
}

/**
 * Summary ids are derived, so committing the same summary twice is a no-op:
 * `sum_` + 16 hex of sha256 over conversation, kind, depth, sources
 * (`m<id>` in seq order for a leaf, child ids in order for a condensed one) and content.
 */
export function summaryId(conversationId: number, kind: NewSummary["kind"], depth: number, sources: readonly string[], content: string): string {
  const digest = createHash("sha256").update(`${conversationId}\u0000${kind}\u0000${depth}\u0000${sources.join(",")}\u0000${content}`).digest("hex");
  return `sum_${digest.slice(0, 16)}`;
}

/**
 * The id and span of a summary from the source rows the driver found: for a
 * leaf the messages (of this conversation) among `wantedMessageIds`, for a
 * condensed one the child summaries (of this conversation) by id.
 */
export function summarySources(
  input: NewSummary,
  found: { messages?: readonly SourceMessage[]; children?: ReadonlyMap<string, SummaryRecord> },
): SummarySources | Refused {
  const conv = input.conversationId;
  const span: SummarySpan = { earliestAt: Infinity, latestAt: -Infinity, firstSeq: Infinity, lastSeq: -Infinity, descendantMessages: 0, sourceTokens: 0 };
  const widen = (earliest: number, latest: number, first: number, last: number) => {
    span.earliestAt = Math.min(span.earliestAt, earliest);
    span.latestAt = Math.max(span.latestAt, latest);
    span.firstSeq = Math.min(span.firstSeq, first);
    span.lastSeq = Math.max(span.lastSeq, last);
  };
  if (input.kind === "leaf") {
    const byId = new Map((found.messages ?? []).map((m) => [m.id, m]));
    const rows: SourceMessage[] = [];
    for (const id of wantedMessageIds(input)) {
      const r = byId.get(id);
      if (!r) return { ok: false, reason: "unknown_source", detail: `message ${id} is not in conversation ${conv}` };
      rows.push(r);
    }
    rows.sort((a, b) => a.seq - b.seq);
    for (const r of rows) {
      widen(r.createdAt, r.createdAt, r.seq, r.seq);
      span.descendantMessages++;
      span.sourceTokens += r.tokens;
    }
    const messageIds = rows.map((r) => r.id);
    const id = summaryId(conv, input.kind, input.depth, messageIds.map((m) => `m${m}`), input.content);
    return { id, span, messageIds, childIds: [] };
  }
  const childIds = [...(input.childSummaryIds ?? [])];
  let maxDepth = -1;
  for (const cid of childIds) {
    const s = found.children?.get(cid);
    if (!s || s.conversationId !== conv) return { ok: false, reason: "unknown_source", detail: `summary ${cid} is not in conversation ${conv}` };
    maxDepth = Math.max(maxDepth, s.depth);
    widen(s.earliestAt, s.latestAt, s.firstSeq, s.lastSeq);
    span.descendantMessages += s.descendantMessages;
    span.sourceTokens += s.sourceTokens;
  }
  if (input.depth <= maxDepth) throw new Error(`commitSummary: a condensed summary's depth (${input.depth}) must exceed its children's (${maxDepth})`);
  return { id: summaryId(conv, input.kind, input.depth, childIds, input.content), span, messageIds: [], childIds };
}

/** The row to insert for a new summary (the driver adds its lineage from `SummarySources`). */
export function summaryRecord(input: NewSummary, sources: SummarySources, now: number): SummaryRecord {
  return {
    id: sources.id,
    conversationId: input.conversationId,
    kind: input.kind,
    depth: input.depth,
    content: input.content,
    tokens: Math.max(0, Math.round(input.tokens)),
    level: input.level ?? "normal",
    model: input.model ?? null,
    ...sources.span,
    meta: input.meta ?? null,
    createdAt: input.createdAt ?? now,
  };
}

export function sameKey(a: FrontierItemKey, b: FrontierItemKey): boolean {
  return a.kind === "message" ? b.kind === "message" && a.messageId === b.messageId : b.kind === "summary" && a.summaryId === b.summaryId;
}

/** What to do with the frontier: nothing (already published), or replace the run, with its counter changes. */
export type FrontierSwap =
  | { kind: "already" }
  | { kind: "replace"; fromOrdinal: number; toOrdinal: number; removedItems: number; removedTokens: number };

/**
 * Compare-and-swap over the run the driver read (`run`: the frontier items
 * between `replace.fromOrdinal` and `toOrdinal`, in order). `alreadyPublished`:
 * the summary exists and is in the frontier (a retried publish).
 */
export function frontierSwap(
  replace: FrontierReplace,
  sources: SummarySources,
  run: readonly FrontierItem[],
  alreadyPublished: boolean,
): FrontierSwap | Refused {
  if (alreadyPublished) return { kind: "already" };
  const same = run.length > 0 && run.length === replace.expect.length && run.every((r, i) => sameKey(r, replace.expect[i]!));
  if (!same) {
    return {
      ok: false,
      reason: "frontier_changed",
      detail: `frontier ordinals ${replace.fromOrdinal}..${replace.toOrdinal} no longer hold the expected ${replace.expect.length} items`,
    };
  }
  // A leaf covers messages only, a condensed summary summaries only (the other kind of id is empty).
  const messages = new Set(sources.messageIds);
  const children = new Set(sources.childIds);
  const stray = run.find((r) => (r.kind === "message" ? !messages.has(r.messageId) : !children.has(r.summaryId)));
  if (stray) {
    const what = stray.kind === "message" ? `message ${stray.messageId}` : `summary ${stray.summaryId}`;
    return { ok: false, reason: "not_covered", detail: `frontier ordinal ${stray.ordinal} (${what}) is not covered by the summary` };
  }
  return {
    kind: "replace",
    fromOrdinal: replace.fromOrdinal,
    toOrdinal: replace.toOrdinal,
    removedItems: run.length,
    removedTokens: run.reduce((a, r) => a + r.tokens, 0),
  };
}

/** A batch step with the ids of the earlier steps it names (`ids[k]`: step k's summary) filled in. */
export function resolveBatchStep(step: SummaryBatchStep, ids: readonly string[]): { summary: NewSummary; replace: FrontierReplace } {
  const earlier = step.earlier;
  if (!earlier?.some((k) => k !== null)) return step;
  const idAt = (i: number, given: string): string => {
    const k = earlier[i];
    if (k === null || k === undefined) return given;
    const id = ids[k];
    if (id === undefined) throw new Error(`commitSummaries: a step names step ${k}, which is not an earlier committed step`);
    return id;
  };
  const childSummaryIds = (step.summary.childSummaryIds ?? []).map((c, i) => idAt(i, c));
  const expect = step.replace.expect.map((e, i): FrontierItemKey => (e.kind === "summary" ? { kind: "summary", summaryId: idAt(i, e.summaryId) } : e));
  return { summary: { ...step.summary, childSummaryIds }, replace: { ...step.replace, expect } };
}
