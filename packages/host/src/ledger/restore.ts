import type { Message } from "@context-engine/core";
import { digestMemo } from "./digest.js";
import { isPinsBlock } from "./pins-block.js";
import type { LedgerCompaction } from "./types.js";

export interface Unfolded {
  messages: Message[];
  /** Ids of the compactions undone, in the order they were unfolded. */
  compactions: string[];
  /** Messages put back. */
  back: number;
}

/**
 * Undo compaction `target` on the live list: its inserted messages leave,
 * the messages it removed go back where they were (after the message that
 * preceded them then). A later compaction that took away something this one
 * needs (its summary, or the message its originals follow) overlaps it and
 * is unfolded first; later compactions that do not overlap stay applied.
 * `active` lists the compactions not yet undone, oldest first.
 */
export function unfoldCompaction(live: readonly Message[], target: LedgerCompaction, active: readonly LedgerCompaction[]): Unfolded {
  const list = live.slice();
  const messageDigest = digestMemo();
  // A message read back redacted from disk stands for its exact original (the digest it carries).
  for (const e of active) for (const p of [...e.removed, ...e.inserted]) if (p.digest) messageDigest.seed(p.message, p.digest);
  const done: string[] = [];
  let back = 0;
  const order = new Map(active.map((e, i) => [e.id, i] as const));
  // The digests in the list, built once per change of the list: a search of the whole list for each needed digest
  // made undoing a compaction that kept a long tail quadratic (about 10^10 comparisons at 100k kept messages).
  let inList: Set<string> | null = null;
  const present = (digest: string) => (inList ??= new Set(list.map(messageDigest))).has(digest);

  const unfold = (entry: LedgerCompaction) => {
    if (done.includes(entry.id)) return;
    for (const digest of neededDigests(entry, messageDigest)) {
      if (present(digest)) continue;
      const cover = active.find((f) => (order.get(f.id) ?? -1) > (order.get(entry.id) ?? -1) && !done.includes(f.id) && f.removed.some((r) => messageDigest(r.message) === digest));
      if (cover) {
        unfold(cover);
        inList = null;
      }
    }
    back += putBack(list, entry, messageDigest);
    inList = null;
    done.push(entry.id);
  };
  unfold(target);
  return { messages: list, compactions: done, back };
}

/** What must be in the list for an entry to be undone in place: its inserted messages and the messages it kept. */
function neededDigests(entry: LedgerCompaction, messageDigest: (m: Message) => string): string[] {
  const removed = new Set(entry.removed.map((r) => r.index));
  return [...entry.inserted.map((p) => messageDigest(p.message)), ...entry.before.filter((_, i) => !removed.has(i))];
}

/** Replace one entry's inserted messages by its removed ones, in place; returns how many came back. */
function putBack(list: Message[], entry: LedgerCompaction, messageDigest: (m: Message) => string): number {
  let firstInserted = -1;
  for (const p of entry.inserted) {
    const digest = messageDigest(p.message);
    const at = list.findIndex((m) => messageDigest(m) === digest);
    if (at < 0) continue;
    list.splice(at, 1);
    if (firstInserted < 0 || at < firstInserted) firstInserted = at;
  }
  const removed = new Set(entry.removed.map((r) => r.index));
  const runs = new Map<number, Message[]>();
  for (const r of [...entry.removed].sort((a, b) => a.index - b.index)) {
    let anchor = r.index - 1;
    while (anchor >= 0 && removed.has(anchor)) anchor--;
    const run = runs.get(anchor) ?? [];
    run.push(r.message);
    runs.set(anchor, run);
  }
  // Earlier runs first: the list up to each anchor then holds what the list before did, so counting equal messages finds the right one.
  for (const anchor of [...runs.keys()].sort((a, b) => a - b)) {
    const at = anchorPosition(list, entry, anchor, firstInserted, messageDigest);
    list.splice(at, 0, ...runs.get(anchor)!);
  }
  return entry.removed.length;
}

/** Where a run of originals goes: right after the message that preceded it, else where the summary was, else after the head. */
function anchorPosition(list: readonly Message[], entry: LedgerCompaction, anchor: number, firstInserted: number, messageDigest: (m: Message) => string): number {
  if (anchor >= 0) {
    const digest = entry.before[anchor]!;
    // The same occurrence of that content as in the list before (equal messages, e.g. two "ok", are told apart by count).
    const occurrence = entry.before.slice(0, anchor).filter((d) => d === digest).length;
    let seen = 0;
    let last = -1;
    for (let i = 0; i < list.length; i++) {
      if (messageDigest(list[i]!) !== digest) continue;
      last = i;
      if (seen++ === occurrence) return i + 1;
    }
    if (last >= 0) return last + 1;
  }
  if (firstInserted >= 0) return Math.min(firstInserted, list.length);
  let head = 0;
  while (head < list.length && (list[head]!.role === "system" || isPinsBlock(list[head]!))) head++;
  return head;
}
