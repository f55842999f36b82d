import { describeError } from "@context-engine/core";
import { SUMMARY_OVERHEAD_TOKENS } from "../assembly/render.js";
import { prepareSteps, replaySteps, virtualFrontier } from "../compaction/runner.js";
import type { PreparedWork, RunDeps } from "../compaction/runner.js";
import type { VirtualItem } from "../compaction/planner.js";
import type { LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import type { SessionState } from "./sessions.js";

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

/** The published frontier as planner items, with every message shape the planner may ask for loaded. */
export async function plannerFrontier(parts: EngineParts, store: LcmStoreDriver, conversationId: number): Promise<{ version: number; items: VirtualItem[] }> {
  const frontier = await store.getFrontier(conversationId, { shapes: true });
  await parts.shapes.ensure(store, frontier);
  return { version: frontier.version, items: await virtualFrontier(store, frontier.items) };
}

/**
 * Start (at most one) background preparation for a session: summaries
 * computed off the turn path and published by the next compress. Never
 * awaited by the turn; its failures are logged, never thrown.
 */
export function startPreparing(parts: EngineParts, store: LcmStoreDriver, s: SessionState): void {
  if (parts.isClosed()) return;
  if (s.preparing) {
    // The history grew while a run is going: one more run follows it, extending its work.
    s.prepareAgain = true;
    return;
  }
  s.prepareAgain = false;
  const signal = s.abort.signal;
  const job = prepare(parts, store, s, signal)
    .catch((error: unknown) => {
      if (!signal.aborted) parts.logger.warn("lcm: background preparation failed", { error: describeError(error) });
      return null;
    })
    .then(async (work) => {
      if (!s.prepareAgain || signal.aborted || parts.isClosed()) return work;
      s.prepareAgain = false;
      return (await prepare(parts, store, s, signal).catch(() => null)) ?? work;
    })
    .finally(() => {
      if (s.preparing === job) s.preparing = null;
    });
  s.preparing = job;
}

async function prepare(parts: EngineParts, store: LcmStoreDriver, s: SessionState, signal: AbortSignal): Promise<PreparedWork | null> {
  const conv = await store.getConversation(s.conversationId);
  if (!conv || signal.aborted) return null;
  s.snapshot = conv;
  if (conv.frontierTokens < parts.budgets.prepareAt()) return null;
  const start = await plannerFrontier(parts, store, s.conversationId);
  let items = start.items;
  // Work already prepared is extended, not redone: its steps are replayed on the newer frontier.
  const previous = s.prepared?.steps ?? [];
  if (previous.length) {
    const replayed = replaySteps(items, previous);
    if (replayed) items = replayed;
    else s.prepared = null;
  }
  const base = s.prepared?.steps ?? [];
  parts.metrics.prepareRuns++;
  const work = await prepareSteps(
    runDeps(parts, store),
    s.conversationId,
    { version: start.version, items },
    { plan: parts.budgets.plan(false), maxPasses: parts.config.max_passes, stopAtTokens: parts.budgets.target(), signal },
    base,
  );
  if (signal.aborted || work.steps.length <= base.length) return null;
  // Only the newest preparation is kept; publishing checks every step against the frontier anyway.
  s.prepared = work;
  return work;
}
