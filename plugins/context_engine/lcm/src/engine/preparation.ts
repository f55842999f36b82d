import { importing } from "./import-drain.js";
import { setTimeout as sleep } from "node:timers/promises";
import { describeErrorWithCauses } from "@context-engine/core";
import { SUMMARY_OVERHEAD_TOKENS } from "../assembly/render.js";
import { prepareSteps, total } from "../compaction/runner.js";
import type { PreparedWork, RunDeps } from "../compaction/runner.js";
import type { CompactionLock, LcmStoreDriver } from "../store/types.js";
import { pauseFor } from "./index-drain.js";
import type { EngineParts } from "./parts.js";
import { plannerItems, publishWork } from "./plan-view.js";
import type { EngineSession } from "./session.js";

/** What the compaction runner needs from the engine. */
export function runDeps(parts: EngineParts, store: LcmStoreDriver): RunDeps {
  return {
    store,
    summarizer: parts.summarizer,
    loadShapes: parts.shapes.loader,
    logger: parts.logger,
    summaryOverhead: SUMMARY_OVERHEAD_TOKENS,
    targetTokens: { leaf: parts.config.leaf_target_tokens, condensed: parts.config.condensed_target_tokens },
  };
}

/**
 * Start (at most one) background preparation for a session: summaries
 * computed off the turn path and published by the next compress. Never
 * awaited by the turn; its failures are logged, never thrown.
 */
export function startPreparing(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
  // While an import stores its backlog the history has a gap: summaries wait for it (the import's end starts them).
  if (parts.isClosed() || importing(s) || !s.claimPreparation()) return;
  const signal = s.signal;
  const job: Promise<PreparedWork | null> = inBackground(parts, s, () => prepare(parts, store, s, signal))
    .catch((error: unknown) => {
      if (!signal.aborted) parts.logger.warn("lcm: background preparation failed", { error: describeErrorWithCauses(error) });
      return null;
    })
    .then(async (work) => {
      // The history grew while this run went on: one more run extends its work.
      if (!s.takePrepareAgain() || signal.aborted || parts.isClosed()) return work;
      return (await inBackground(parts, s, () => prepare(parts, store, s, signal)).catch(() => null)) ?? work;
    })
    .finally(() => {
      s.endPreparing(job);
      // A frontier still over the threshold is drained on a schedule, not left for a compress that may never come.
      parts.drain.kick(parts, store, s);
    });
  s.beginPreparing(job);
}

/**
 * A preparation run as background work on the engine's clock: it starts once no hook is in flight (on a later
 * macrotask, so the hook that started it returns first) and its CPU time is the background's. A locked call of
 * the session waiting (a compress waits for this run) lets it go on at once.
 */
async function inBackground<T>(parts: EngineParts, s: EngineSession, run: () => Promise<T>): Promise<T> {
  await parts.clock.quiet(() => s.busy);
  return parts.clock.background(run);
}

async function prepare(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, signal: AbortSignal): Promise<PreparedWork | null> {
  const conv = await store.getConversation(s.conversationId);
  if (!conv || signal.aborted) return null;
  s.noteConversation(conv);
  if (conv.frontierTokens < parts.budgets.prepareAt()) return null;
  // Work already prepared is extended, not redone: its steps are replayed on the session's copy of the frontier.
  const start = await plannerItems(parts.shapes, store, s);
  const base = s.prepared?.steps ?? [];
  // More than one compaction can take (max_passes full leaf chunks above the target: a long history imported or
  // resumed): a few summaries per run, published at once, so each turn stays cheap and the next run starts
  // where this one stopped.
  const plan = parts.budgets.plan(false);
  const target = parts.budgets.target();
  // Published now, not kept for a compress: a frontier over the threshold (the host's own list may stay under it
  // and never call compress: an imported history), or one more than a compaction behind.
  const overThreshold = conv.frontierTokens >= parts.budgets.drainAt();
  const backlog = overThreshold || total(start.items) > target + parts.config.max_passes * plan.leafChunkTokens;
  const maxPasses = backlog ? Math.min(parts.config.backlog_passes, parts.config.max_passes) : parts.config.max_passes;
  parts.metrics.prepareRuns++;
  const work = await prepareSteps(
    runDeps(parts, store),
    s.conversationId,
    start,
    // A backlog run is paced by the scheduled drain (a pause after each run); work ahead of the threshold paces itself.
    { plan, maxPasses, stopAtTokens: target, signal, pauseAfter: (cpuMs: number) => pace(parts, s, cpuMs, backlog) },
    base,
  );
  if (signal.aborted) return null;
  const grew = work.steps.length > base.length;
  // Only the newest preparation is kept; publishing checks every step against the frontier anyway.
  if (grew) s.offerPrepared(work);
  // Steps prepared earlier are published too: they never wait for a compress the host may not make.
  const pending = s.prepared;
  // Published only when no locked call is waiting: a compress holding the lock may be waiting for this run.
  if (backlog && pending?.steps.length && !s.busy) await s.locked(() => publishBacklog(parts, store, s, pending, signal));
  return grew ? work : null;
}

/**
 * Between two summaries of a background run: a hook in flight goes first (the next summary waits for it), and
 * work ahead of the threshold keeps within `drain_cpu_share` of one core (a pause in proportion to the CPU time
 * the summary took; a backlog run is paced by the scheduled drain after the run). A locked call waiting (a
 * compress waits for this run) ends the pauses and the waits.
 */
async function pace(parts: EngineParts, s: EngineSession, cpuMs: number, backlog: boolean): Promise<void> {
  const pause = s.busy || backlog ? 0 : pauseFor(cpuMs, parts.config.drain_cpu_share);
  await parts.clock.aside(async () => {
    if (pause > 0) await sleep(pause);
    await parts.clock.quiet(() => s.busy);
  });
}

/** Publish a backlog run's work now (inside the session's lock), unless a compress took it meanwhile. */
async function publishBacklog(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, work: PreparedWork, signal: AbortSignal): Promise<void> {
  if (signal.aborted || parts.isClosed() || s.prepared !== work) return;
  const publish = (lock?: CompactionLock) => publishWork(s, store, work, parts.logger, lock);
  // Another process compacting this conversation: the work waits for the next compress here.
  const out = store.withCompactionLock ? (await store.withCompactionLock(s.conversationId, publish))?.value : await publish();
  if (!out) return;
  parts.metrics.published += out.committed.length;
  parts.metrics.stalePrepared += out.stale;
  s.notePublished(work);
}

