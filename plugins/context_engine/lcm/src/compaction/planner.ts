import type { MessageShape } from "./units.js";
import { splitUnits } from "./units.js";

/**
 * The compaction planner works on a *virtual* frontier: the published one,
 * plus the summaries prepared but not yet published. A plan step names what
 * it replaces by identity (message ids, summary ids or earlier steps), so it
 * can be computed now and published later with a compare-and-swap.
 */

/** `ordinal` is the item's frontier sort key (a pending summary takes the first ordinal of the run it replaces). */
export type VirtualItem =
  | { kind: "message"; messageId: number; tokens: number; ordinal: number }
  | { kind: "summary"; summaryId: string; tokens: number; depth: number; ordinal: number }
  | { kind: "pending"; ref: number; tokens: number; depth: number; ordinal: number };

export type SummaryItem = Extract<VirtualItem, { kind: "summary" | "pending" }>;

export interface LeafPlan {
  kind: "leaf";
  messageIds: number[];
  sourceTokens: number;
  /** Index in the virtual frontier of the first replaced item. */
  at: number;
  /** The summary item just before the run, for continuity. */
  previous: SummaryItem | null;
  fromOrdinal: number;
  toOrdinal: number;
}

export interface CondensePlan {
  kind: "condense";
  /** Depth of the new node. */
  depth: number;
  children: SummaryItem[];
  sourceTokens: number;
  at: number;
  fromOrdinal: number;
  toOrdinal: number;
}

export type Plan = LeafPlan | CondensePlan;

export interface PlanOptions {
  freshTailCount: number;
  freshTailMaxTokens: number;
  leafChunkTokens: number;
  leafMinMessages: number;
  fanout: number;
  maxDepth: number;
  /** Condense once the summaries in the frontier take more than this. */
  summaryBudget: number;
  /** Under pressure (a compress that must shrink the context) smaller steps are allowed. */
  pressure: boolean;
}

/** Shapes of the messages the planner looks at, loaded on demand (bounded by the tail and one chunk). */
export type ShapeLoader = (ids: readonly number[]) => Map<number, MessageShape>;

export function isSummaryItem(item: VirtualItem): item is SummaryItem {
  return item.kind !== "message";
}

/**
 * Index of the first item of the protected fresh tail: the newest messages,
 * at most `freshTailCount` of them and `freshTailMaxTokens` worth (at least
 * the newest one), widened to start at a unit boundary (never on a tool result).
 */
export function freshTailStart(items: readonly VirtualItem[], load: ShapeLoader, options: PlanOptions): number {
  let count = 0;
  let tokens = 0;
  let start = items.length;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== "message") break;
    if (count >= options.freshTailCount) break;
    if (count > 0 && tokens + item.tokens > options.freshTailMaxTokens) break;
    count++;
    tokens += item.tokens;
    start = i;
  }
  if (start >= items.length) return start;
  // Widen to the start of a unit: include the assistant message whose results open the tail.
  const window: number[] = [];
  for (let i = start; i >= 0 && i >= start - 64; i--) {
    const item = items[i]!;
    if (item.kind !== "message") break;
    window.push(item.messageId);
  }
  const shapes = load(window);
  let s = start;
  while (s > 0) {
    const item = items[s]!;
    if (item.kind !== "message") break;
    const shape = shapes.get(item.messageId);
    if (!shape || shape.role !== "tool") break;
    const prev = items[s - 1]!;
    if (prev.kind !== "message") break;
    s--;
  }
  return s;
}

function planLeaf(items: readonly VirtualItem[], tailStart: number, load: ShapeLoader, o: PlanOptions): LeafPlan | null {
  let i = 0;
  while (i < tailStart && items[i]!.kind !== "message") i++;
  if (i >= tailStart) return null;
  // Candidate run: consecutive messages before the tail, read only as far as one chunk (plus one unit of slack).
  const ids: number[] = [];
  let budget = 0;
  for (let j = i; j < tailStart; j++) {
    const item = items[j]!;
    if (item.kind !== "message") break;
    ids.push(item.messageId);
    budget += item.tokens;
    if (budget > o.leafChunkTokens * 1.5 && ids.length >= 64) break;
  }
  const shapes = load(ids);
  const run: MessageShape[] = [];
  for (const id of ids) {
    const s = shapes.get(id);
    if (!s) break;
    run.push(s);
  }
  const units = splitUnits(run);
  const chosen: MessageShape[] = [];
  let tokens = 0;
  for (const unit of units) {
    if (!unit.complete) break;
    // A unit cut off at the end of the loaded window may continue past it: never take the last one unless the run ends there.
    if (unit.end === run.length && run.length < ids.length) break;
    if (chosen.length > 0 && tokens + unit.tokens > o.leafChunkTokens) break;
    for (let k = unit.start; k < unit.end; k++) chosen.push(run[k]!);
    tokens += unit.tokens;
  }
  if (chosen.length === 0) return null;
  if (chosen.length < o.leafMinMessages && !o.pressure) return null;
  const prevItem = i > 0 ? items[i - 1]! : null;
  return {
    kind: "leaf",
    messageIds: chosen.map((m) => m.id),
    sourceTokens: tokens,
    at: i,
    previous: prevItem && isSummaryItem(prevItem) ? prevItem : null,
    fromOrdinal: items[i]!.ordinal,
    toOrdinal: items[i + chosen.length - 1]!.ordinal,
  };
}

function planCondense(items: readonly VirtualItem[], tailStart: number, o: PlanOptions, minFanout: number): CondensePlan | null {
  // Contiguous runs of same-depth summaries; the shallowest eligible depth goes first.
  let best: { at: number; run: SummaryItem[]; depth: number } | null = null;
  let i = 0;
  while (i < tailStart) {
    const item = items[i]!;
    if (!isSummaryItem(item)) {
      i++;
      continue;
    }
    const run: SummaryItem[] = [item];
    let j = i + 1;
    while (j < tailStart) {
      const next = items[j]!;
      if (!isSummaryItem(next) || next.depth !== item.depth) break;
      run.push(next);
      j++;
    }
    if (run.length >= minFanout && item.depth + 1 <= o.maxDepth && (!best || item.depth < best.depth)) {
      best = { at: i, run, depth: item.depth };
    }
    i = j;
  }
  if (!best) return null;
  const children: SummaryItem[] = [];
  let tokens = 0;
  for (const child of best.run) {
    if (children.length >= o.fanout) break;
    if (children.length >= 2 && tokens + child.tokens > o.leafChunkTokens) break;
    children.push(child);
    tokens += child.tokens;
  }
  if (children.length < Math.min(minFanout, 2) || children.length < 2) return null;
  return {
    kind: "condense",
    depth: best.depth + 1,
    children,
    sourceTokens: tokens,
    at: best.at,
    fromOrdinal: children[0]!.ordinal,
    toOrdinal: children[children.length - 1]!.ordinal,
  };
}

/** The next step that makes the frontier smaller, or null when nothing is eligible. */
export function planNext(items: readonly VirtualItem[], load: ShapeLoader, o: PlanOptions): Plan | null {
  const tailStart = freshTailStart(items, load, o);
  let summaryTokens = 0;
  let summaryCount = 0;
  for (let i = 0; i < tailStart; i++) {
    const item = items[i]!;
    if (isSummaryItem(item)) {
      summaryTokens += item.tokens;
      summaryCount++;
    }
  }
  const crowded = summaryTokens > o.summaryBudget || summaryCount > o.fanout * 3;
  if (crowded) {
    const condensed = planCondense(items, tailStart, o, o.fanout);
    if (condensed) return condensed;
  }
  const leaf = planLeaf(items, tailStart, load, o);
  if (leaf) return leaf;
  if (o.pressure && crowded) return planCondense(items, tailStart, o, 2);
  return null;
}

/** Replace the planned run in the virtual frontier with a pending summary. */
export function applyPlan(items: VirtualItem[], plan: Plan, ref: number, tokens: number): void {
  const count = plan.kind === "leaf" ? plan.messageIds.length : plan.children.length;
  const depth = plan.kind === "leaf" ? 0 : plan.depth;
  items.splice(plan.at, count, { kind: "pending", ref, tokens, depth, ordinal: plan.fromOrdinal });
}
