import { estimateTextTokens } from "@context-engine/core";
import type { ConversationRecord, FrontierItem, LcmStoreDriver, StoredMessage, SummaryRecord } from "../store/types.js";
import type { AssemblyState } from "./assembler.js";
import { blockOverheadTokens, renderSummary, renderSummaryBlock } from "./render.js";

/**
 * What the caller already holds of a conversation: its record as just read and, when the engine keeps it current
 * (the planner's copy, right after a compaction it published), its whole published frontier in order. The tail is
 * then taken from that copy instead of being read again.
 */
export interface KnownFrontier {
  conversation: ConversationRecord | null;
  frontier?: readonly FrontierItem[];
}

/** The newest items worth `maxTokens` (at least `minItems`), by the stores' `getFrontierTail` rule, from a copy in memory. */
export function tailOf(items: readonly FrontierItem[], maxTokens: number, minItems: number): FrontierItem[] {
  let used = 0;
  let start = items.length;
  while (start > 0) {
    const it = items[start - 1]!;
    if (items.length - start >= minItems && used + it.tokens > maxTokens) break;
    used += it.tokens;
    start--;
  }
  return items.slice(start);
}

/** Immutable-row caches shared by every assembly of one engine (rows never change once stored). */
export class RowCache {
  readonly #messages = new Map<number, StoredMessage>();
  readonly #summaries = new Map<string, { record: SummaryRecord; rendered: string; tokens: number }>();
  readonly #assemblies = new Map<number, AssemblyState>();
  readonly #blocks = new Map<string, { parts: string[]; value: { text: string; overhead: number } }>();
  readonly #tails = new Map<number, { version: number; count: number; tokens: number; maxTokens: number; items: FrontierItem[] }>();
  constructor(private readonly maxEntries = 20_000) {}

  async messages(store: LcmStoreDriver, ids: readonly number[]): Promise<Map<number, StoredMessage>> {
    const out = new Map<number, StoredMessage>();
    const missing: number[] = [];
    for (const id of ids) {
      const hit = this.#messages.get(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length) {
      for (const m of await this.#read(store, missing)) {
        out.set(m.id, m);
        this.#remember(this.#messages, m.id, m);
      }
    }
    return out;
  }

  /**
   * Rows by id. A large batch of a tail is usually one contiguous seq range of
   * one conversation: read it with one range query instead of one query per id.
   */
  async #read(store: LcmStoreDriver, ids: readonly number[]): Promise<StoredMessage[]> {
    if (ids.length < 32) return store.getMessagesByIds(ids);
    let lo = ids[0]!;
    let hi = ids[0]!;
    for (const id of ids) {
      if (id < lo) lo = id;
      if (id > hi) hi = id;
    }
    const [first, last] = await Promise.all([store.getMessage(lo), store.getMessage(hi)]);
    if (!first || !last || first.conversationId !== last.conversationId) return store.getMessagesByIds(ids);
    const span = last.seq - first.seq + 1;
    if (span <= 0 || span > ids.length * 1.25 + 8) return store.getMessagesByIds(ids);
    const wanted = new Set(ids);
    const rows = (await store.getMessages(first.conversationId, { fromSeq: first.seq, toSeq: last.seq })).filter((m) => wanted.has(m.id));
    if (rows.length === wanted.size) return rows;
    const found = new Set(rows.map((m) => m.id));
    return [...rows, ...(await store.getMessagesByIds(ids.filter((id) => !found.has(id))))];
  }

  async summaries(store: LcmStoreDriver, ids: readonly string[]): Promise<Map<string, { record: SummaryRecord; rendered: string; tokens: number }>> {
    const out = new Map<string, { record: SummaryRecord; rendered: string; tokens: number }>();
    const missing: string[] = [];
    for (const id of ids) {
      const hit = this.#summaries.get(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length) {
      for (const record of await store.getSummaries(missing)) out.set(record.id, this.#rememberSummary(record));
    }
    return out;
  }

  /** Summaries this engine just published (as the store returned them): the assembly after a compaction does not read them back. */
  rememberSummaries(records: readonly SummaryRecord[]): void {
    for (const record of records) this.#rememberSummary(record);
  }

  #rememberSummary(record: SummaryRecord): { record: SummaryRecord; rendered: string; tokens: number } {
    const rendered = renderSummary(record);
    const entry = { record, rendered, tokens: estimateTextTokens(rendered) + 1 };
    this.#remember(this.#summaries, record.id, entry);
    return entry;
  }

  /**
   * The newest frontier items worth `maxTokens`, read incrementally: when the
   * frontier only grew at its end since the last call (the common case: a new
   * turn), only the new items are read. Anything else (a compaction, a reset,
   * retention) is detected from the counters and triggers a full re-read.
   */
  async frontierTail(
    store: LcmStoreDriver,
    conversationId: number,
    maxTokens: number,
    shownCap = Number.POSITIVE_INFINITY,
    reload = false,
    known?: KnownFrontier,
  ): Promise<{ items: FrontierItem[]; appended: FrontierItem[] | null }> {
    const conv = known ? known.conversation : await store.getConversation(conversationId);
    if (!conv) return { items: [], appended: null };
    const whole = known?.frontier;
    const readTail = (want: number, minItems: number) => (whole ? tailOf(whole, want, minItems) : store.getFrontierTail(conversationId, want, { minItems }));
    const prev = this.#tails.get(conversationId);
    if (prev && prev.maxTokens === maxTokens && !reload) {
      if (prev.version === conv.frontierVersion) return { items: prev.items, appended: [] };
      const addedCount = conv.frontierCount - prev.count;
      const addedTokens = conv.frontierTokens - prev.tokens;
      const newest = prev.items[prev.items.length - 1];
      if (newest && addedCount > 0 && addedCount <= 4_096 && addedTokens >= 0) {
        const fresh = await readTail(addedTokens + newest.tokens, addedCount + 1);
        const anchor = fresh[0];
        const appended = fresh.slice(1);
        const appendedTokens = appended.reduce((a, i) => a + i.tokens, 0);
        if (anchor && fresh.length === addedCount + 1 && anchor.ordinal === newest.ordinal && sameItem(anchor, newest) && appendedTokens === addedTokens) {
          const items = [...prev.items, ...appended];
          // Drop from the front what no longer fits the window.
          let total = 0;
          let start = items.length;
          while (start > 0 && (start === items.length || total + items[start - 1]!.tokens <= maxTokens)) {
            total += items[--start]!.tokens;
          }
          const kept = items.slice(start);
          this.#tails.set(conversationId, { version: conv.frontierVersion, count: conv.frontierCount, tokens: conv.frontierTokens, maxTokens, items: kept });
          return { items: kept, appended };
        }
      }
    }
    // Large messages are shown shortened, so a window of raw tokens can hold less than the budget shows:
    // widen it until the shown size fills the budget or the frontier is exhausted (bounded rounds).
    let want = maxTokens;
    let items = await readTail(want, 1);
    for (let round = 0; round < 8 && items.length < conv.frontierCount; round++) {
      let shown = 0;
      for (const it of items) shown += it.kind === "message" ? Math.min(it.tokens, shownCap) : it.tokens;
      const first = items[0];
      const startsOnResult = first?.kind === "message" && (await this.messages(store, [first.messageId])).get(first.messageId)?.role === "tool";
      if (shown >= maxTokens && !startsOnResult) break;
      want *= 2;
      items = await readTail(want, items.length + 1);
    }
    this.#tails.set(conversationId, { version: conv.frontierVersion, count: conv.frontierCount, tokens: conv.frontierTokens, maxTokens, items });
    return { items, appended: null };
  }

  assemblyState(conversationId: number): AssemblyState | undefined {
    return this.#assemblies.get(conversationId);
  }

  setAssemblyState(conversationId: number, state: AssemblyState): void {
    this.#assemblies.set(conversationId, state);
  }

  /** The rendered summary block for a run of summaries (cached: the same run renders once). */
  block(rendered: readonly string[], omitted: number): { text: string; overhead: number } {
    const key = `${omitted}|${rendered.length}|${rendered.map((r) => r.length).join(",")}|${rendered[0]?.slice(0, 40) ?? ""}|${rendered[rendered.length - 1]?.slice(0, 40) ?? ""}`;
    const hit = this.#blocks.get(key);
    if (hit && hit.parts.length === rendered.length && hit.parts.every((p, i) => p === rendered[i])) return hit.value;
    const text = renderSummaryBlock(rendered, omitted);
    const value = { text, overhead: blockOverheadTokens(omitted, rendered.length > 0) };
    if (this.#blocks.size > 256) this.#blocks.clear();
    this.#blocks.set(key, { parts: [...rendered], value });
    return value;
  }

  /** Forget everything (after a hard delete). */
  clear(): void {
    this.#messages.clear();
    this.#summaries.clear();
    this.#tails.clear();
    this.#assemblies.clear();
    this.#blocks.clear();
  }

  #remember<K, V>(map: Map<K, V>, key: K, value: V): void {
    if (map.size >= this.maxEntries) {
      const first = map.keys().next();
      if (!first.done) map.delete(first.value);
    }
    map.set(key, value);
  }
}


function sameItem(a: FrontierItem, b: FrontierItem): boolean {
  return a.kind === "message" ? b.kind === "message" && a.messageId === b.messageId : b.kind === "summary" && a.summaryId === b.summaryId;
}
