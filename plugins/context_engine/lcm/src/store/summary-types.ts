import type { Role } from "@context-engine/core";

/** The summary DAG and the active-context frontier as the store keeps them (see `types.ts`). */

export type SummaryKind = "leaf" | "condensed";

/** How the summary text was obtained, for quality tracking and repair. */
export type SummaryLevel = "normal" | "aggressive" | "fallback";

export interface NewSummary {
  conversationId: number;
  kind: SummaryKind;
  /** 0 for leaf summaries; 1 + max child depth for condensed ones. */
  depth: number;
  content: string;
  /** Tokens of `content`. */
  tokens: number;
  /** Leaf: the messages it covers (any order; stored in seq order). */
  sourceMessageIds?: readonly number[];
  /** Condensed: the summaries it covers, in order. */
  childSummaryIds?: readonly string[];
  level?: SummaryLevel;
  model?: string | null;
  /** Free-form JSON-able metadata (prompt version, focus topic…). */
  meta?: Record<string, unknown>;
  createdAt?: number;
}

export interface SummaryRecord {
  /** `sum_` + 16 hex, derived from the conversation, sources and content (idempotent). */
  id: string;
  conversationId: number;
  kind: SummaryKind;
  depth: number;
  content: string;
  tokens: number;
  level: SummaryLevel;
  model: string | null;
  /** Time span of the covered messages (epoch ms). */
  earliestAt: number;
  latestAt: number;
  /** Seq span of the covered messages (inclusive). */
  firstSeq: number;
  lastSeq: number;
  /** Number of original messages under it (through the whole subtree). */
  descendantMessages: number;
  /** Sum of the tokens of the original messages under it. */
  sourceTokens: number;
  meta: Record<string, unknown> | null;
  createdAt: number;
}

export interface SummaryLineage {
  /** Direct message sources (leaf), in seq order. */
  messageIds: number[];
  /** Direct child summaries (condensed), in order. */
  childSummaryIds: string[];
  /** Summaries that directly cover this one (normally 0 or 1). */
  parentSummaryIds: string[];
}

export type FrontierItemKey = { kind: "message"; messageId: number } | { kind: "summary"; summaryId: string };

/** What compaction planning needs of a message (never its content): read with the frontier in one call. */
export interface FrontierShape {
  role: Role;
  /** Calls this assistant message makes (empty otherwise). */
  toolCallIds: string[];
  /** For a tool result: the call it answers. */
  toolCallId: string | null;
}

/** One element of the active context, in order. */
export type FrontierItem = FrontierItemKey & {
  /** Sparse sort key: order by it, never assume it is contiguous. */
  ordinal: number;
  tokens: number;
  /** Message items only, when asked for (`getFrontier(id, { shapes: true })`). */
  shape?: FrontierShape;
};

export interface Frontier {
  conversationId: number;
  version: number;
  /** Tokens and items of the whole frontier (also when `items` holds only what follows `afterOrdinal`). */
  tokens: number;
  count: number;
  items: FrontierItem[];
}

export interface FrontierReadOptions {
  /** Each message item carries its role and tool-call ids (one read for the planner). */
  shapes?: boolean;
  /** Only the items after this ordinal (what was appended since a reader's last item). */
  afterOrdinal?: number;
}

/**
 * Replace a contiguous run of frontier items (from `fromOrdinal` to
 * `toOrdinal`, inclusive) with one summary item. Compare-and-swap: applied
 * only when the run holds exactly `expect`, in order; otherwise nothing
 * changes and the caller gets `frontier_changed`.
 */
export interface FrontierReplace {
  fromOrdinal: number;
  toOrdinal: number;
  expect: readonly FrontierItemKey[];
}

/**
 * One step of `commitSummaries`: a summary and the frontier run it replaces.
 * `earlier[i]`, when a number, names an earlier step of the same batch whose
 * summary is the i-th child: its id fills `childSummaryIds[i]` and
 * `replace.expect[i]` (left empty by the caller, the id being known only once stored).
 */
export interface SummaryBatchStep {
  summary: NewSummary;
  replace: FrontierReplace;
  earlier?: ReadonlyArray<number | null>;
}

export interface CommitSummariesResult {
  /** The steps committed, in order (a prefix of the batch). */
  committed: SummaryRecord[];
  /** The first step refused (its reason as `commitSummary` gives it); the batch stopped there. */
  refused?: { step: number; reason: Extract<CommitSummaryResult, { ok: false }>["reason"]; detail: string };
}

export type CommitSummaryResult =
  | { ok: true; summary: SummaryRecord; frontierVersion: number }
  | {
      ok: false;
      /**
       * `frontier_changed`: the run no longer holds `expect` (CAS lost);
       * `unknown_source`: a source is not in this conversation;
       * `not_covered`: the run holds an item the summary does not cover (it would vanish without lineage).
       */
      reason: "frontier_changed" | "unknown_source" | "not_covered";
      detail: string;
    };
