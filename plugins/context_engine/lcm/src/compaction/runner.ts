import { setImmediate as yieldToEvents } from "node:timers/promises";
import type { Logger } from "@context-engine/core";
import type { FrontierItem, LcmStoreDriver, SummaryRecord } from "../store/types.js";
import type { Plan, PlanOptions, ShapeLoader, SummaryItem, VirtualItem } from "./planner.js";
import { applyPlan, planNext } from "./planner.js";
import { renderSourceMessages } from "./source-text.js";
import type { Summarizer, SummarizeResult } from "./summarizer.js";

/** A summary computed against a frontier snapshot, not yet published. */
export interface PreparedStep {
  plan: Plan;
  result: SummarizeResult;
  /** Tokens the summary takes in the assembled context. */
  tokens: number;
}

export interface PreparedWork {
  conversationId: number;
  /** Frontier version the work was planned on (informational; publishing is per-run CAS). */
  baseVersion: number;
  steps: PreparedStep[];
  /** Sum of tokens the steps remove from the frontier. */
  savedTokens: number;
}

export interface RunDeps {
  store: LcmStoreDriver;
  summarizer: Summarizer;
  loadShapes: ShapeLoader;
  logger: Logger;
  /** Tokens a summary adds in the rendered context beyond its content. */
  summaryOverhead: number;
  targetTokens: { leaf: number; condensed: number };
}

export interface RunOptions {
  plan: PlanOptions;
  maxPasses: number;
  /** Stop once the virtual frontier is at or under this many tokens. */
  stopAtTokens: number;
  focusTopic?: string;
  signal?: AbortSignal;
  /** Epoch ms after which model summaries are no longer started (deterministic ones instead). */
  modelDeadline?: number;
  /** Between passes of a background run: a pause sized from the CPU time the last pass took (a bounded share of a core). */
  pauseAfter?: (passCpuMs: number) => Promise<void>;
}

/** The published frontier as planner items (summary depths looked up in one query). */
export async function virtualFrontier(store: LcmStoreDriver, items: readonly FrontierItem[]): Promise<VirtualItem[]> {
  const summaryIds = items.filter((i) => i.kind === "summary").map((i) => (i as { summaryId: string }).summaryId);
  const depth = new Map<string, number>();
  if (summaryIds.length) for (const s of await store.getSummaries(summaryIds)) depth.set(s.id, s.depth);
  return items.map((i) =>
    i.kind === "message"
      ? { kind: "message", messageId: i.messageId, tokens: i.tokens, ordinal: i.ordinal }
      : { kind: "summary", summaryId: i.summaryId, tokens: i.tokens, depth: depth.get(i.summaryId) ?? 0, ordinal: i.ordinal },
  );
}

/** Tokens of a (virtual) frontier. */
export function total(items: readonly VirtualItem[]): number {
  let t = 0;
  for (const i of items) t += i.tokens;
  return t;
}

/**
 * Compute summaries until the virtual frontier is small enough, nothing is
 * eligible, or the pass budget is spent. Writes nothing: the result is
 * published later (or dropped) by `publishPrepared`.
 */
export async function prepareSteps(
  deps: RunDeps,
  conversationId: number,
  start: { version: number; items: VirtualItem[] },
  options: RunOptions,
  previous: PreparedStep[] = [],
): Promise<PreparedWork> {
  const items = start.items;
  const steps: PreparedStep[] = [...previous];
  let saved = 0;
  let passCpu = process.cpuUsage();
  for (let pass = 0; pass < options.maxPasses; pass++) {
    // The event loop is free between passes: a hook arriving meanwhile waits for one summary, not the whole run.
    if (pass > 0) {
      const used = process.cpuUsage(passCpu);
      await (options.pauseAfter ? options.pauseAfter((used.user + used.system) / 1000) : yieldToEvents());
      passCpu = process.cpuUsage();
    }
    if (options.signal?.aborted) break;
    if (total(items) <= options.stopAtTokens) break;
    const plan = planNext(items, deps.loadShapes, options.plan);
    if (!plan) break;
    const result = await summarizePlan(deps, plan, steps, options);
    const tokens = result.tokens + deps.summaryOverhead;
    const removed = plan.sourceTokens;
    applyPlan(items, plan, steps.length, tokens);
    steps.push({ plan, result, tokens });
    saved += removed - tokens;
  }
  return { conversationId, baseVersion: start.version, steps, savedTokens: saved };
}

/**
 * Re-apply prepared steps to a newer snapshot of the frontier (new messages
 * appended since), so that a later preparation extends the earlier one instead
 * of redoing it. Null when a step's run is no longer there.
 */
export function replaySteps(items: readonly VirtualItem[], steps: readonly PreparedStep[]): VirtualItem[] | null {
  const out = spliceSteps(
    items,
    steps,
    (k, step) => ({ kind: "pending", ref: k, tokens: step.tokens, depth: step.plan.kind === "leaf" ? 0 : step.plan.depth, ordinal: step.plan.fromOrdinal }),
    (ref) => (it) => it.kind === "pending" && it.ref === ref,
  );
  return out?.items ?? null;
}

/**
 * The published frontier after `committed` (one summary per step, in order)
 * replaced the steps' runs, with the change in tokens and items; null when a
 * run is not where the steps say.
 */
export function applySteps(
  items: readonly VirtualItem[],
  steps: readonly PreparedStep[],
  committed: readonly SummaryRecord[],
): { items: VirtualItem[]; tokenDelta: number; countDelta: number } | null {
  if (committed.length !== steps.length) return null;
  return spliceSteps(
    items,
    steps,
    (k, step) => ({ kind: "summary", summaryId: committed[k]!.id, tokens: committed[k]!.tokens, depth: committed[k]!.depth, ordinal: step.plan.fromOrdinal }),
    (ref) => (it) => it.kind === "summary" && it.summaryId === committed[ref]?.id,
  );
}

/** Replace each step's run (found by its first ordinal, checked item by item) with the item `replacement` makes. */
function spliceSteps(
  items: readonly VirtualItem[],
  steps: readonly PreparedStep[],
  replacement: (k: number, step: PreparedStep) => VirtualItem,
  earlierStep: (ref: number) => (it: VirtualItem) => boolean,
): { items: VirtualItem[]; tokenDelta: number; countDelta: number } | null {
  const out = [...items];
  let tokenDelta = 0;
  let countDelta = 0;
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]!;
    const plan = step.plan;
    const keys: Array<(it: VirtualItem) => boolean> =
      plan.kind === "leaf"
        ? plan.messageIds.map((id) => (it: VirtualItem) => it.kind === "message" && it.messageId === id)
        : plan.children.map((c) => (c.kind === "pending" ? earlierStep(c.ref) : (it: VirtualItem) => it.kind === "summary" && it.summaryId === c.summaryId));
    const runAt = (at: number) => at >= 0 && keys.every((match, n) => out[at + n] !== undefined && match(out[at + n]!));
    // Items stay in ordinal order and a replacement takes its run's first ordinal: a binary search finds the run
    // (a search by identity only when the frontier was renumbered since the step was planned).
    let at = indexOfOrdinal(out, plan.fromOrdinal);
    if (!runAt(at)) at = out.findIndex(keys[0]!);
    if (!runAt(at)) return null;
    const item = replacement(k, step);
    for (let n = 0; n < keys.length; n++) tokenDelta -= out[at + n]!.tokens;
    tokenDelta += item.tokens;
    countDelta += 1 - keys.length;
    out.splice(at, keys.length, item);
  }
  return { items: out, tokenDelta, countDelta };
}

/** Index of the item with this ordinal in an ordinal-sorted list, or -1. */
function indexOfOrdinal(items: readonly VirtualItem[], ordinal: number): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const o = items[mid]!.ordinal;
    if (o === ordinal) return mid;
    if (o < ordinal) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

async function summaryContent(deps: RunDeps, item: SummaryItem, steps: readonly PreparedStep[]): Promise<string> {
  if (item.kind === "pending") return steps[item.ref]?.result.content ?? "";
  return (await deps.store.getSummary(item.summaryId))?.content ?? "";
}

async function summarizePlan(deps: RunDeps, plan: Plan, steps: readonly PreparedStep[], options: RunOptions): Promise<SummarizeResult> {
  const late = options.modelDeadline !== undefined && Date.now() >= options.modelDeadline;
  const timing = late ? { modelUnavailableReason: "compress time budget spent" } : {};
  if (plan.kind === "leaf") {
    const stored = await deps.store.getMessagesByIds(plan.messageIds);
    const source = renderSourceMessages(stored.map((m) => ({ seq: m.seq, message: m.message, createdAt: m.createdAt })));
    const previous = plan.previous ? await summaryContent(deps, plan.previous, steps) : "";
    return deps.summarizer.summarize({
      depth: 0,
      source,
      sourceTokens: Math.max(plan.sourceTokens, 1),
      targetTokens: Math.max(96, Math.min(deps.targetTokens.leaf, Math.floor(plan.sourceTokens * 0.35))),
      ...(previous ? { previousContext: previous } : {}),
      ...(options.focusTopic ? { focusTopic: options.focusTopic } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...timing,
    });
  }
  const blocks: string[] = [];
  for (const [k, c] of plan.children.entries()) blocks.push(`[summary ${k + 1} of ${plan.children.length}]\n${await summaryContent(deps, c, steps)}`);
  return deps.summarizer.summarize({
    depth: plan.depth,
    source: blocks.join("\n\n"),
    sourceTokens: Math.max(plan.sourceTokens, 1),
    targetTokens: Math.max(192, Math.min(deps.targetTokens.condensed, Math.floor(plan.sourceTokens * 0.5))),
    ...(options.focusTopic ? { focusTopic: options.focusTopic } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...timing,
  });
}
