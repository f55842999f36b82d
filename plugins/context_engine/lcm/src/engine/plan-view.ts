import type { Logger } from "@context-engine/core";
import type { VirtualItem } from "../compaction/planner.js";
import { applySteps, replaySteps, virtualFrontier } from "../compaction/runner.js";
import type { PreparedWork } from "../compaction/runner.js";
import { publishPrepared, type PublishOutcome } from "../compaction/publish.js";
import type { CompactionLock, Frontier, IngestResult, LcmStoreDriver } from "../store/types.js";
import type { EngineSession, PlanView } from "./session.js";
import type { ShapeBook } from "./shapes.js";

/**
 * The planner's copy of a session's published frontier (`PlanView`), kept
 * between runs so that a run reads only what was appended since its last item
 * (one short query) instead of the whole frontier: a turn's cost does not grow
 * with the history. What this engine publishes is applied to the copy; any
 * other change (another process, retention, a reset) shows in the frontier's
 * counters and the copy is read again whole. Publishing checks every step
 * against the store, so a copy out of date costs work, never correctness.
 */

/** The session's published frontier as planner items, every message shape loaded. */
export async function publishedView(shapes: ShapeBook, store: LcmStoreDriver, s: EngineSession): Promise<PlanView> {
  const current = await extendedView(shapes, store, s);
  if (current) return current;
  const frontier = await store.getFrontier(s.conversationId, { shapes: true });
  await shapes.ensure(store, frontier);
  const items = await virtualFrontier(store, frontier.items);
  const fresh = { version: frontier.version, tokens: frontier.tokens, count: frontier.count, lastOrdinal: items.length ? items[items.length - 1]!.ordinal : -1, items };
  s.setPlanView(fresh);
  return fresh;
}

/**
 * The session's copy brought up to date by reading only what was appended since its last item; null (and the
 * copy dropped) when the frontier changed otherwise, or when there is no copy.
 */
export async function extendedView(shapes: ShapeBook, store: LcmStoreDriver, s: EngineSession): Promise<PlanView | null> {
  const view = s.planView;
  if (!view) return null;
  const delta = await store.getFrontier(s.conversationId, { shapes: true, afterOrdinal: view.lastOrdinal });
  let added = 0;
  for (const item of delta.items) added += item.tokens;
  if (view.tokens + added !== delta.tokens || view.count + delta.items.length !== delta.count) {
    s.setPlanView(null);
    return null;
  }
  if (delta.items.length) {
    await shapes.ensure(store, delta, { partial: true });
    for (const item of await virtualFrontier(store, delta.items)) view.items.push(item);
    view.lastOrdinal = delta.items[delta.items.length - 1]!.ordinal;
  }
  view.version = delta.version;
  view.tokens = delta.tokens;
  view.count = delta.count;
  return view;
}

/**
 * An ingest's frontier items (`IngestResult.frontierAppend`) added to the session's copy without reading them
 * back: when the copy matches the counters the frontier had before the ingest, or there is no copy and the
 * frontier was empty (a long history's first turn then never reads its frontier). Otherwise nothing changes
 * here: the next `publishedView` reads what it must, as before.
 */
export async function viewAfterIngest(shapes: ShapeBook, store: LcmStoreDriver, s: EngineSession, result: IngestResult): Promise<void> {
  const added = result.frontierAppend;
  if (!added?.items.length) return;
  const { before, items } = added;
  const view = s.planView ?? (before.count === 0 && before.tokens === 0 ? { version: before.version, tokens: 0, count: 0, lastOrdinal: -1, items: [] } : null);
  if (!view || view.tokens !== before.tokens || view.count !== before.count || items[0]!.ordinal <= view.lastOrdinal) return;
  const delta: Frontier = { conversationId: s.conversationId, version: before.version + 1, tokens: before.tokens, count: before.count + items.length, items };
  await shapes.ensure(store, delta, { partial: true });
  for (const item of await virtualFrontier(store, items)) {
    view.items.push(item);
    view.tokens += item.tokens;
  }
  view.count = delta.count;
  view.lastOrdinal = items[items.length - 1]!.ordinal;
  view.version = view.version === before.version ? delta.version : -1;
  s.setPlanView(view);
}

/**
 * What the planner starts from: the published frontier with the session's
 * prepared (unpublished) steps applied, as a copy the planner may change.
 */
export async function plannerItems(shapes: ShapeBook, store: LcmStoreDriver, s: EngineSession): Promise<{ version: number; items: VirtualItem[] }> {
  const view = await publishedView(shapes, store, s);
  const steps = s.prepared?.steps ?? [];
  if (steps.length) {
    const replayed = replaySteps(view.items, steps);
    if (replayed) return { version: view.version, items: replayed };
    s.takePrepared();
  }
  return { version: view.version, items: view.items.slice() };
}

/**
 * Publish prepared work (see `publishPrepared`) and bring the session's view
 * up to date: every step committed is applied to it; anything less (a stale
 * step, a lost lock) drops the view, read again whole next time.
 */
export async function publishWork(s: EngineSession, store: LcmStoreDriver, work: PreparedWork, logger: Logger, lock?: CompactionLock): Promise<PublishOutcome> {
  const out = await publishPrepared(store, work, logger, lock);
  const view = s.planView;
  if (!view) return out;
  const applied = out.stale === 0 && out.committed.length === work.steps.length ? applySteps(view.items, work.steps, out.committed) : null;
  if (!applied) {
    s.setPlanView(null);
    return out;
  }
  view.items = applied.items;
  view.tokens += applied.tokenDelta;
  view.count += applied.countDelta;
  view.version = -1;
  return out;
}
