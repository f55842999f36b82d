import type { Logger } from "@context-engine/core";
import type { CompactionLock, FrontierItemKey, LcmStoreDriver, NewSummary, SummaryBatchStep, SummaryRecord } from "../store/types.js";
import type { PreparedStep, PreparedWork } from "./runner.js";

/**
 * Publishing prepared work: every step of one compaction in one store
 * transaction (`commitSummaries`), each step a compare-and-swap on the run it
 * replaces. Nothing is written before this point: two processes that prepared
 * the same run race only here, and the loser's compare-and-swap fails.
 */

export interface PublishOutcome {
  committed: SummaryRecord[];
  /** Steps dropped because the frontier changed under them. */
  stale: number;
}

function sameKey(a: FrontierItemKey, b: FrontierItemKey): boolean {
  return a.kind === "message" ? b.kind === "message" && a.messageId === b.messageId : b.kind === "summary" && a.summaryId === b.summaryId;
}

/** The frontier run a step replaces, its pending children resolved by `ids` (of the steps before it); null if one is not. */
export function runOf(step: PreparedStep, ids: readonly (string | null)[]): FrontierItemKey[] | null {
  const expect: FrontierItemKey[] = [];
  if (step.plan.kind === "leaf") {
    for (const id of step.plan.messageIds) expect.push({ kind: "message", messageId: id });
  } else {
    for (const c of step.plan.children) {
      const sid = c.kind === "pending" ? ids[c.ref] : c.summaryId;
      if (!sid) return null;
      expect.push({ kind: "summary", summaryId: sid });
    }
  }
  return expect.length ? expect : null;
}

/** The summary a prepared step publishes (`expect`: its sources, children resolved to stored ids). */
export function summaryOf(conversationId: number, step: PreparedStep, expect: readonly FrontierItemKey[]): NewSummary {
  return {
    conversationId,
    kind: step.plan.kind === "leaf" ? "leaf" : "condensed",
    depth: step.plan.kind === "leaf" ? 0 : step.plan.depth,
    content: step.result.content,
    tokens: step.result.tokens,
    level: step.result.level,
    model: step.result.model ?? null,
    meta: {
      prompt: "lcm-v1",
      ...(step.result.fallbackReason ? { fallbackReason: step.result.fallbackReason } : {}),
      ...(step.result.rejected ? { rejected: step.result.rejected } : {}),
    },
    ...(step.plan.kind === "leaf"
      ? { sourceMessageIds: step.plan.messageIds }
      : { childSummaryIds: expect.map((e) => (e as { summaryId: string }).summaryId) }),
  };
}

/**
 * The batch for `commitSummaries`: a pending child (a summary of an earlier
 * step) is named by its step index and filled in by the store once stored.
 * Null when a step names a step that is not before it.
 */
export function batchOf(work: PreparedWork): SummaryBatchStep[] | null {
  const batch: SummaryBatchStep[] = [];
  for (const [k, step] of work.steps.entries()) {
    const plan = step.plan;
    const earlier = plan.kind === "leaf" ? [] : plan.children.map((c) => (c.kind === "pending" ? c.ref : null));
    if (earlier.some((ref) => ref !== null && (ref < 0 || ref >= k))) return null;
    // An earlier step's summary id is known only once stored: the store fills these in.
    const expect: FrontierItemKey[] =
      plan.kind === "leaf"
        ? plan.messageIds.map((messageId) => ({ kind: "message", messageId }))
        : plan.children.map((c) => ({ kind: "summary", summaryId: c.kind === "pending" ? "" : c.summaryId }));
    if (!expect.length) return null;
    const replace = { fromOrdinal: plan.fromOrdinal, toOrdinal: plan.toOrdinal, expect };
    batch.push({ summary: summaryOf(work.conversationId, step, expect), replace, ...(earlier.length ? { earlier } : {}) });
  }
  return batch;
}

/**
 * Publish prepared steps in order: all of them in one transaction when every
 * run is where it was planned (the common case: one write, no frontier read).
 * A step refused because its run moved is retried one by one from there
 * (`publishOneByOne` locates a renumbered run); any other refusal drops that
 * step and everything after it, the steps before it staying (each a valid state).
 */
export async function publishPrepared(store: LcmStoreDriver, work: PreparedWork, logger: Logger, lock?: CompactionLock): Promise<PublishOutcome> {
  if (!work.steps.length) return { committed: [], stale: 0 };
  // A pass that lost its lock (or the connection holding it) publishes nothing more.
  if (lock && !(await lock.stillHeld())) {
    logger.warn("lcm: compaction lock lost; the rest of the pass is not published", { conversationId: work.conversationId, unpublished: work.steps.length });
    return { committed: [], stale: work.steps.length };
  }
  const batch = batchOf(work);
  if (!batch) return { committed: [], stale: work.steps.length };
  const out = await store.commitSummaries(batch);
  if (!out.refused) return { committed: out.committed, stale: 0 };
  if (out.refused.reason !== "frontier_changed") {
    logger.debug("lcm: prepared step dropped", { reason: out.refused.reason, detail: out.refused.detail });
    return { committed: out.committed, stale: work.steps.length - out.committed.length };
  }
  return publishOneByOne(store, work, out.committed, logger, lock);
}

/** The steps after `committed`, one transaction each, a run that moved located once in the frontier read again. */
async function publishOneByOne(store: LcmStoreDriver, work: PreparedWork, done: readonly SummaryRecord[], logger: Logger, lock?: CompactionLock): Promise<PublishOutcome> {
  const committed = [...done];
  const ids: Array<string | null> = done.map((s) => s.id);
  for (let k = committed.length; k < work.steps.length; k++) {
    const step = work.steps[k]!;
    if (k > done.length && lock && !(await lock.stillHeld())) {
      logger.warn("lcm: compaction lock lost; the rest of the pass is not published", { conversationId: work.conversationId, unpublished: work.steps.length - k });
      return { committed, stale: work.steps.length - k };
    }
    const expect = runOf(step, ids);
    if (!expect) return { committed, stale: work.steps.length - k };
    const summary = summaryOf(work.conversationId, step, expect);
    let res = await store.commitSummary(summary, { fromOrdinal: step.plan.fromOrdinal, toOrdinal: step.plan.toOrdinal, expect });
    if (!res.ok && res.reason === "frontier_changed") {
      const items = (await store.getFrontier(work.conversationId)).items;
      const at = items.findIndex((i) => sameKey(i, expect[0]!));
      const run = at >= 0 ? items.slice(at, at + expect.length) : [];
      if (run.length === expect.length && run.every((it, n) => sameKey(it, expect[n]!))) {
        res = await store.commitSummary(summary, { fromOrdinal: run[0]!.ordinal, toOrdinal: run[run.length - 1]!.ordinal, expect });
      }
    }
    if (!res.ok) {
      logger.debug("lcm: prepared step dropped", { reason: res.reason, detail: res.detail });
      return { committed, stale: work.steps.length - k };
    }
    ids.push(res.summary.id);
    committed.push(res.summary);
  }
  return { committed, stale: 0 };
}
