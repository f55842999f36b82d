import type { Message } from "@context-engine/core";
import type { SearchQuery } from "../src/search/types.js";
import type { LcmStore } from "../src/store/types.js";
import { rng } from "./engine-helpers.js";

/**
 * A seeded conversation for before/after comparisons of a store's layout:
 * 240 messages over a small vocabulary (so words repeat and rank), a few CJK
 * sentences and rare identifiers, and the summaries to lay over them
 * (leaves over runs of 20 messages, condensed ones over three leaves).
 */
const WORDS = "deploy retry gateway timeout staging migration schema config cache index worker queue payment invoice ledger canary review patch branch release".split(" ");
const CJK = ["決済サービスの障害を調査しました", "請求書の再発行が必要です", "ステージング環境でリトライが失敗"];

export function seededMessages(count = 240, seed = 7): Message[] {
  const r = rng(seed);
  const out: Message[] = [];
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 4 + Math.floor(r() * 14) }, () => WORDS[Math.floor(r() * WORDS.length)]!);
    if (r() < 0.08) words.push(CJK[Math.floor(r() * CJK.length)]!);
    if (i % 40 === 0) words.push(`kenobi${i}`);
    out.push({ role: i % 2 === 0 ? "user" : "assistant", content: words.join(" ") } as Message);
  }
  return out;
}

/** Leaf summaries over runs of `run` messages (by position), and condensed ones over each three leaves. */
export function seededSummaryPlan(count = 240, run = 20): { leaves: Array<{ from: number; to: number; content: string }>; condensed: number[][] } {
  const leaves = [];
  for (let from = 0; from + run <= count; from += run) leaves.push({ from, to: from + run - 1, content: `leaf ${from}: ${WORDS[(from / run) % WORDS.length]} and ${WORDS[(from / run + 3) % WORDS.length]} ${from % 60 === 0 ? CJK[0] : ""}` });
  const condensed = [];
  for (let i = 0; i + 3 <= leaves.length; i += 3) condensed.push([i, i + 1, i + 2]);
  return { leaves, condensed };
}

/** The queries compared: ranked words, a rare identifier, CJK, a substring, each scope. */
export const SEEDED_QUERIES: Array<Omit<SearchQuery, "conversationId">> = [
  { query: "deploy retry" },
  { query: "payment ledger invoice", scope: "both" },
  { query: "kenobi40" },
  { query: "決済サービス" },
  { query: "gateway", scope: "summaries" },
  { query: "staging", scope: "messages", limit: 30 },
  { query: "canary review", scope: "both", limit: 25 },
];

/**
 * A SQLite store seeded for a before/after comparison: the seeded messages ingested two at a time (ids in seq
 * order), the leaf summaries of `seededSummaryPlan` committed over them, and the condensed ones when asked.
 */
export function seedStore(store: LcmStore, options: { condensed?: boolean } = {}) {
  const conv = store.conversation("seeded");
  const messages = seededMessages();
  for (let i = 0; i < messages.length; i += 2) store.ingest(conv.id, messages.slice(i, i + 2), { mode: "append" });
  const ids = messages.map((_, seq) => store.getMessageBySeq(conv.id, seq)!.id);
  const plan = seededSummaryPlan(messages.length);
  const leafIds = plan.leaves.map((l) => {
    const r = store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: l.content, tokens: 10, sourceMessageIds: ids.slice(l.from, l.to + 1) });
    if (!r.ok) throw new Error(r.detail);
    return r.summary.id;
  });
  if (options.condensed) {
    for (const [n, group] of plan.condensed.entries()) {
      const r = store.commitSummary({ conversationId: conv.id, kind: "condensed", depth: 1, content: `condensed ${n}: gateway review`, tokens: 10, childSummaryIds: group.map((i) => leafIds[i]!) });
      if (!r.ok) throw new Error(r.detail);
    }
  }
  return { conv, messages, ids, leafIds };
}
