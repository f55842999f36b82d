import type { EncodedMessage } from "./codec.js";
import type { IngestInputs } from "./ingest-inputs.js";
import type { IngestNeed, StoredRef } from "./ingest-plan.js";
import { gapsOf, matchInOrder, matchTellingFirst } from "./reconcile.js";
import type { IngestOptions } from "./types.js";

/**
 * Reconciling a whole list with the stored history (when no writer position
 * holds): which inputs are provably stored, read through the plan's needs.
 * The rules are in the README ("Every message once").
 */

/** Stored rows read per gap for the looser (tool-call-id-free) identity: enough for a host's rewrite of its recent turns. */
const looseLimit = (gapLength: number): number => gapLength * 4 + 64;

export function* reconcile(
  inputs: IngestInputs,
  storedCount: number,
  ids: Map<number, number>,
  keyFrom: number | null,
  seen: IngestOptions["seenIds"],
  holdBeforeSeq?: number,
): Generator<IngestNeed, { fresh: number[]; matched: number; disagreed: number; anchored: boolean; held: number }, unknown> {
  const real = inputs.encodeRange(0);
  const exact = real.map((i) => inputs.encoded(i)!.hashHex);
  const weak = real.map((i) => isWeak(inputs.encoded(i)!));
  const stored = (yield { kind: "hashes", hashes: new Set(exact) }) as StoredRef[];
  // Two ordered matches, each completed the same way; the one that proves more telling messages stored (then
  // more messages) wins. They agree on most lists, and then the second is not completed.
  const longest = matchHistoryThenTurn(real, exact, weak, stored, keyFrom, false);
  // Telling items first differs from the longest match only where the list mixes weak and telling messages.
  const mixed = weak.includes(true) && weak.includes(false);
  const telling = mixed ? matchHistoryThenTurn(real, exact, weak, stored, keyFrom, true) : longest;
  let best = yield* completeMatch(inputs, real, stored, storedCount, keyFrom, seen, longest);
  if (!sameMatch(longest, telling)) {
    const other = yield* completeMatch(inputs, real, stored, storedCount, keyFrom, seen, telling);
    if (scoreOf(other.seqOf, weak) > scoreOf(best.seqOf, weak)) best = other;
  }
  // A match that passes over this writer's own newest messages and then shows new ones is a short repeat
  // matched to an older copy (a host never drops its latest messages while it grows its list): the match
  // anchored on the writer's own newest stored message is tried, and wins when it skips none.
  const skipped = seen ? ownSkipped(best.seqOf, stored, best.ids, seen) : 0;
  if (skipped > 0) {
    const anchored = matchToOwnTail(exact, stored, real, keyFrom, seen!);
    if (anchored) {
      const other = yield* completeMatch(inputs, real, stored, storedCount, keyFrom, seen, anchored);
      if (ownSkipped(other.seqOf, stored, other.ids, seen!) < skipped) best = other;
    }
  }
  const { seqOf } = best;
  for (const [i, id] of best.ids) ids.set(i, id);
  keepToolRoundsWhole(inputs, real, seqOf, ids);
  // Only a caller that knows what it stored itself asks for proof of short messages (the engine does;
  // a plain store caller is one writer and trusts the ordered match).
  if (seen) dropWeakLoneMatches(inputs, real, seqOf, ids, keyFrom, seen);
  // Inputs before the first one matched at or after `holdBeforeSeq` (an unfinished import's tail) are not new.
  let holdUntil = 0;
  if (holdBeforeSeq !== undefined) {
    const at = seqOf.findIndex((seq) => seq >= holdBeforeSeq);
    holdUntil = at < 0 ? 0 : at;
  }
  const fresh: number[] = [];
  let matched = 0;
  let disagreed = 0;
  let held = 0;
  let lastMatched = -1;
  let anchored = false;
  real.forEach((i, j) => {
    if (seqOf[j]! >= 0) {
      matched++;
      lastMatched = j;
      anchored ||= !weak[j]!;
    } else if (j < holdUntil) held++;
    else fresh.push(i);
  });
  for (let j = holdUntil; j < lastMatched; j++) if (seqOf[j]! < 0) disagreed++;
  return { fresh, matched, disagreed, anchored, held };
}

interface Match {
  /** Per real input: the stored seq it matched, or -1. */
  seqOf: Int32Array;
  /** Input index -> stored id. */
  ids: Map<number, number>;
}

/** An ordered match completed: the looser identity inside its gaps, then what only a rewrite explains. */
function* completeMatch(
  inputs: IngestInputs,
  real: readonly number[],
  stored: readonly StoredRef[],
  storedCount: number,
  keyFrom: number | null,
  seen: IngestOptions["seenIds"],
  ordered: Int32Array,
): Generator<IngestNeed, Match, unknown> {
  const seqOf = new Int32Array(real.length).fill(-1);
  const ids = new Map<number, number>();
  ordered.forEach((p, j) => {
    if (p < 0) return;
    seqOf[j] = stored[p]!.seq;
    ids.set(real[j]!, stored[p]!.id);
  });
  for (const gap of gapsOf(seqOf, storedCount)) {
    const rows = (yield { kind: "loose", afterSeq: gap.afterSeq, beforeSeq: gap.beforeSeq, limit: looseLimit(gap.to - gap.from) }) as StoredRef[];
    const loose = real.slice(gap.from, gap.to).map((i) => inputs.encoded(i)!.looseHex);
    matchInOrder(
      loose,
      rows.map((r) => r.hash),
    ).forEach((p, k) => {
      if (p < 0) return;
      seqOf[gap.from + k] = rows[p]!.seq;
      ids.set(real[gap.from + k]!, rows[p]!.id);
    });
  }
  if (seen) matchStoredOutOfOrder(inputs, real, stored, seqOf, ids, keyFrom);
  if (keyFrom !== null) dropTurnMatchesBehindHistory(real, seqOf, ids, keyFrom);
  return { seqOf, ids };
}

/**
 * This writer's own stored messages (of the list's hashes) after the list's
 * last match, left unmatched although the list shows new messages after it.
 */
function ownSkipped(seqOf: Int32Array, stored: readonly StoredRef[], ids: Map<number, number>, seen: NonNullable<IngestOptions["seenIds"]>): number {
  let last = -1;
  for (let j = 0; j < seqOf.length; j++) if (seqOf[j]! >= 0) last = j;
  if (last < 0 || last === seqOf.length - 1) return 0;
  const lastSeq = seqOf[last]!;
  const used = new Set(ids.values());
  let n = 0;
  for (const r of stored) if (r.seq > lastSeq && seen.has(r.id) && !used.has(r.id)) n++;
  return n;
}

/**
 * The ordered match that ends on this writer's newest stored message: the
 * list's last copy of it, and backwards from there while the list and the
 * writer's stored messages agree; the list before that is matched in order
 * against what is stored before, the named turn (if any) against nothing
 * older than the anchor. Null when the list does not show that message.
 */
function matchToOwnTail(
  exact: readonly string[],
  stored: readonly StoredRef[],
  real: readonly number[],
  keyFrom: number | null,
  seen: NonNullable<IngestOptions["seenIds"]>,
): Int32Array | null {
  let p = stored.length - 1;
  while (p >= 0 && !seen.has(stored[p]!.id)) p--;
  if (p < 0) return null;
  const turnAt = keyFrom === null ? -1 : real.findIndex((i) => i >= keyFrom);
  const split = turnAt < 0 ? real.length : turnAt;
  let k = -1;
  for (let j = split - 1; j >= 0 && k < 0; j--) if (exact[j] === stored[p]!.hash) k = j;
  if (k < 0) return null;
  const out = new Int32Array(real.length).fill(-1);
  const anchor = p;
  while (k >= 0 && p >= 0) {
    if (!seen.has(stored[p]!.id)) {
      p--;
      continue;
    }
    if (exact[k] !== stored[p]!.hash) break;
    out[k--] = p--;
  }
  matchInOrder(exact.slice(0, k + 1), stored.slice(0, p + 1).map((r) => r.hash)).forEach((q, j) => {
    if (q >= 0) out[j] = q;
  });
  if (split < real.length) {
    const after = stored.slice(anchor + 1);
    matchInOrder(exact.slice(split), after.map((r) => r.hash)).forEach((q, j) => {
      if (q >= 0) out[split + j] = anchor + 1 + q;
    });
  }
  return out;
}

function sameMatch(a: Int32Array, b: Int32Array): boolean {
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return false;
  return true;
}

/** Telling messages proved stored count first, then all (weak ones break ties). */
function scoreOf(seqOf: Int32Array, weak: readonly boolean[]): number {
  let telling = 0;
  let all = 0;
  seqOf.forEach((q, j) => {
    if (q < 0) return;
    all++;
    if (!weak[j]) telling++;
  });
  return telling * (seqOf.length + 1) + all;
}

/**
 * The ordered match by identity hash (positions in `stored`, or -1): the
 * list's history first, then the turn the host names (if any) only against
 * what is stored after everything that history matched, since the turn was
 * appended after it. Matching them together could give a repeated request in
 * the turn an old copy and leave a history message the host kept unmatched.
 */
function matchHistoryThenTurn(
  real: readonly number[],
  exact: readonly string[],
  weak: readonly boolean[],
  stored: readonly StoredRef[],
  keyFrom: number | null,
  tellingFirst: boolean,
): Int32Array {
  const out = new Int32Array(real.length).fill(-1);
  let split = real.length;
  if (keyFrom !== null) {
    split = real.findIndex((i) => i >= keyFrom);
    if (split < 0) split = real.length;
  }
  const take = (into: Int32Array, from: number, to: number, offset: number) => {
    const refs = stored.slice(offset);
    const hashes = refs.map((r) => r.hash);
    const m = tellingFirst
      ? matchTellingFirst(
          exact.slice(from, to),
          weak.slice(from, to),
          hashes,
          Int32Array.from(refs, (r) => r.seq),
        )
      : matchInOrder(exact.slice(from, to), hashes);
    m.forEach((p, k) => {
      if (p >= 0) into[from + k] = offset + p;
    });
  };
  // Stored refs ascend by seq: the turn is matched against those after the history's last match only.
  const afterHistory = (match: Int32Array) => {
    let history = -1;
    for (let j = 0; j < split; j++) if (match[j]! >= 0) history = Math.max(history, stored[match[j]!]!.seq);
    let offset = 0;
    while (offset < stored.length && stored[offset]!.seq <= history) offset++;
    return offset;
  };
  take(out, 0, split, 0);
  if (split === real.length) return out;
  take(out, split, real.length, afterHistory(out));
  if (countMatched(out, split) === real.length - split) return out;
  // The longest match may have taken a later equal copy for the history's last message ("Done." turn after turn):
  // the copy stored for this very turn, when another writer stored the turn first. With the history's matches
  // each on its earliest copy the turn may match where it is stored: that match wins when it matches more of it.
  const settled = out.slice();
  settled.fill(-1, split);
  settleLeft(settled, split, exact, stored);
  take(settled, split, real.length, afterHistory(settled));
  return countMatched(settled, split) > countMatched(out, split) ? settled : out;
}

function countMatched(match: Int32Array, from: number): number {
  let n = 0;
  for (let j = from; j < match.length; j++) if (match[j]! >= 0) n++;
  return n;
}

/**
 * A telling message the ordered match left out is stored already where the
 * list shows it before messages stored earlier than it, and after everything
 * before it in the list: only a rewrite puts it there (a host's own summary,
 * stored when it first appeared, then shown ahead of the turns it kept),
 * whoever stored it, so also after a restart. An equal message anywhere else
 * (a repeat of an old request at the list's end) proves nothing, and nothing
 * inside a turn the host names as new is matched this way. Each stored copy
 * proves one list copy.
 */
function matchStoredOutOfOrder(
  inputs: IngestInputs,
  real: readonly number[],
  stored: readonly StoredRef[],
  seqOf: Int32Array,
  ids: Map<number, number>,
  keyFrom: number | null,
): void {
  const used = new Set<number>();
  for (const id of ids.values()) used.add(id);
  const free = new Map<string, StoredRef[]>();
  for (const r of stored) {
    if (used.has(r.id)) continue;
    const list = free.get(r.hash);
    if (list) list.push(r);
    else free.set(r.hash, [r]);
  }
  // The highest seq matched before each list position, and the lowest matched after it.
  const maxBefore = new Int32Array(real.length);
  const minAfter = new Int32Array(real.length);
  let hi = -1;
  for (let j = 0; j < real.length; j++) {
    maxBefore[j] = hi;
    if (seqOf[j]! >= 0) hi = Math.max(hi, seqOf[j]!);
  }
  let lo = 2 ** 31 - 1;
  for (let j = real.length - 1; j >= 0; j--) {
    minAfter[j] = lo;
    if (seqOf[j]! >= 0) lo = Math.min(lo, seqOf[j]!);
  }
  real.forEach((i, j) => {
    if (seqOf[j]! >= 0 || isWeak(inputs.encoded(i)!) || (keyFrom !== null && i >= keyFrom)) return;
    const copies = free.get(inputs.encoded(i)!.hashHex);
    const k = copies?.findIndex((r) => r.seq > maxBefore[j]! && r.seq > minAfter[j]!) ?? -1;
    if (k < 0) return;
    const [r] = copies!.splice(k, 1);
    seqOf[j] = r!.seq;
    ids.set(i, r!.id);
  });
}

/**
 * A turn the host names is appended after the history its list shows: a turn
 * message matched to a copy stored before what that history matched is an
 * old equal message (a repeated request after the host rewrote its list), not
 * this one. Such a match is dropped and the message stored.
 */
function dropTurnMatchesBehindHistory(real: readonly number[], seqOf: Int32Array, ids: Map<number, number>, keyFrom: number): void {
  let history = -1;
  real.forEach((i, j) => {
    if (i < keyFrom) history = Math.max(history, seqOf[j]!);
  });
  real.forEach((i, j) => {
    if (i < keyFrom || seqOf[j]! < 0 || seqOf[j]! > history) return;
    seqOf[j] = -1;
    ids.delete(i);
  });
}

export function isWeak(e: EncodedMessage): boolean {
  return e.toolCallIds.length === 0 && e.toolCallId === null && e.searchText.trim().length < WEAK_TEXT;
}

/** Text under this many characters, with no tool call, says too little to prove a message is stored on its own. */
const WEAK_TEXT = 24;

/** The history part's matched inputs [0, to), each moved to the earliest stored copy after the one before it (the same inputs stay matched, in order). */
function settleLeft(out: Int32Array, to: number, exact: readonly string[], stored: readonly StoredRef[]): void {
  let next = 0;
  for (let j = 0; j < to; j++) {
    const at = out[j]!;
    if (at < 0) continue;
    let p = next;
    // The original position is a candidate (it has the hash and is at or after `next`): p never passes it.
    while (p < at && stored[p]!.hash !== exact[j]) p++;
    out[j] = p;
    next = p + 1;
  }
}

/**
 * Short messages ("", "ok", "continue") matched only among themselves are no
 * proof: another writer's or an older turn's equal messages match as well.
 * Inside a keyed turn (new by the host's word) such a run is stored (a
 * duplicate at worst), never skipped. A run with one telling message in it
 * stands, and so does one this writer stored itself. `keyFrom` is the keyed turn's first input, or null.
 */
function dropWeakLoneMatches(
  inputs: IngestInputs,
  real: readonly number[],
  seqOf: Int32Array,
  ids: Map<number, number>,
  keyFrom: number | null,
  seen: NonNullable<IngestOptions["seenIds"]>,
): void {
  const weak = (j: number) => isWeak(inputs.encoded(real[j]!)!);
  const inTurn = (j: number) => keyFrom !== null && real[j]! >= keyFrom;
  let j = 0;
  while (j < real.length) {
    if (seqOf[j]! < 0) {
      j++;
      continue;
    }
    // A run of matches, split where a keyed turn starts.
    const from = j;
    let allWeak = true;
    // A run is one stretch of stored history: consecutive in the list and in the store.
    while (j < real.length && seqOf[j]! >= 0 && inTurn(j) === inTurn(from) && (j === from || seqOf[j] === seqOf[j - 1]! + 1)) allWeak = weak(j++) && allWeak;
    if (!allWeak) continue;
    // Outside a keyed turn the list is the writer's own history: the ordered match stands.
    if (!inTurn(from)) continue;
    // Messages this writer stored or saw itself are what they look like.
    if (Array.from({ length: j - from }, (_, k) => ids.get(real[from + k]!)!).every((id) => seen.has(id))) continue;
    for (let k = from; k < j; k++) {
      seqOf[k] = -1;
      ids.delete(real[k]!);
    }
  }
}

/** A tool call that is new takes its results with it: a stored result must never precede (or lack) its call. */
function keepToolRoundsWhole(inputs: IngestInputs, real: readonly number[], seqOf: Int32Array, ids: Map<number, number>): void {
  const open = new Set<string>();
  real.forEach((i, j) => {
    const e = inputs.encoded(i)!;
    if (seqOf[j]! < 0) {
      for (const id of e.toolCallIds) open.add(id);
    } else if (e.toolCallId !== null && open.has(e.toolCallId)) {
      seqOf[j] = -1;
      ids.delete(i);
    }
  });
}
