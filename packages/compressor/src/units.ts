import type { Message, TokenCounter } from "@context-engine/core";

/**
 * A conversation seen as atomic units: every non-tool message starts a unit
 * and the tool results directly after it belong to it. An assistant message
 * with tool calls and its results therefore can never be split by a cut,
 * which is the only way to keep tool pairs valid on both sides.
 */
export interface UnitIndex {
  /** Start index of each unit, ascending; `starts[0]` is 0 for a non-empty list. */
  readonly starts: readonly number[];
  /** Unit number of each message. */
  readonly unitOf: Int32Array;
  /** Prefix sums of message tokens: tokens of [a, b) = prefix[b] - prefix[a]. */
  readonly prefix: Float64Array;
  readonly length: number;
}

export function indexUnits(messages: readonly Message[], counter: TokenCounter): UnitIndex {
  const n = messages.length;
  const starts: number[] = [];
  const unitOf = new Int32Array(n);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const m = messages[i]!;
    if (m.role !== "tool" || starts.length === 0) starts.push(i);
    unitOf[i] = starts.length - 1;
    prefix[i + 1] = prefix[i]! + counter.countMessage(m);
  }
  return { starts, unitOf, prefix, length: n };
}

/** Tokens of messages [a, b). */
export function rangeTokens(index: UnitIndex, a: number, b: number): number {
  if (b <= a) return 0;
  return index.prefix[b]! - index.prefix[a]!;
}

/** The smallest unit boundary at or after `i` (a cut there splits no tool group). */
export function alignForward(index: UnitIndex, i: number): number {
  if (i <= 0) return 0;
  if (i >= index.length) return index.length;
  const u = index.unitOf[i]!;
  return index.starts[u] === i ? i : (index.starts[u + 1] ?? index.length);
}

/** The largest unit boundary at or before `i`. */
export function alignBackward(index: UnitIndex, i: number): number {
  if (i <= 0) return 0;
  if (i >= index.length) return index.length;
  return index.starts[index.unitOf[i]!]!;
}

/** End (exclusive) of the unit that contains message `i`. */
export function unitEnd(index: UnitIndex, i: number): number {
  const u = index.unitOf[i]!;
  return index.starts[u + 1] ?? index.length;
}
