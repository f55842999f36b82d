import { defaultTokenCounter, toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import type { FrontierItem, LcmStoreDriver, StoredMessage } from "../store/types.js";
import { BLOCK_OVERHEAD_TOKENS, shortenMessage } from "./render.js";
import type { KnownFrontier, RowCache } from "./row-cache.js";

export { RowCache } from "./row-cache.js";

/**
 * Context assembly: the system prompt, then as much of the frontier as fits,
 * newest first, rendered oldest first. Only the items that fit are read from
 * the store, so the cost follows the budget, not the length of the history.
 * Every store call is awaited (one batched read per kind of row), so the same
 * code assembles from SQLite and from PostgreSQL.
 */

export interface AssembleInput {
  conversationId: number;
  /** The host's leading system/developer messages, passed through unchanged. */
  head: readonly Message[];
  /** Token budget for the whole returned list. */
  budget: number;
  /** Messages above this size are shown shortened (except in the newest unit when it fits). */
  largeMessageTokens: number;
  /** Live host copies of stored messages (by stored id): reused so the tail keeps the host's exact bytes. */
  live?: ReadonlyMap<number, Message>;
  /** Role and answered call of a stored message, when the engine holds them (the planner's shapes): with a live copy, no read. */
  shapeOf?: (messageId: number) => { role: StoredMessage["role"]; toolCallId: string | null } | undefined;
  /** The conversation as the caller just read it, and its whole frontier when the caller holds it current: neither is read again. */
  known?: KnownFrontier;
}

/** What assembly needs of a stored message; `seq` only to name a shortened one, so known messages may leave it out. */
export type MessageFacts = Pick<StoredMessage, "id" | "role" | "message" | "tokens" | "toolCallId"> & { seq?: number };

export interface AssembleResult {
  messages: Message[];
  tokens: number;
  frontierVersion: number;
  /** Frontier items shown / not shown. */
  shownItems: number;
  omittedItems: number;
  summariesShown: number;
  messagesShown: number;
  shortened: number;
}

export type Piece =
  | { kind: "summary"; id: string; rendered: string; tokens: number }
  | { kind: "message"; stored: MessageFacts; message: Message; tokens: number; shortened: boolean; largeInLastUnit: boolean };

/** What the last assembly of a conversation chose, so the next one only handles what was appended. */
export interface AssemblyState {
  key: string;
  frontierVersion: number;
  pieces: Piece[];
  used: number;
}

function buildPiece(
  it: FrontierItem,
  stored: ReadonlyMap<number, MessageFacts>,
  summaries: ReadonlyMap<string, { rendered: string; tokens: number }>,
  input: AssembleInput,
  avail: number,
  inLastUnit: boolean,
  keepLastUnitWhole: boolean,
): Piece | null {
  if (it.kind === "summary") {
    const s = summaries.get(it.summaryId);
    return s ? { kind: "summary", id: it.summaryId, rendered: s.rendered, tokens: s.tokens } : null;
  }
  const m = stored.get(it.messageId);
  if (!m) return null;
  const large = m.tokens > input.largeMessageTokens;
  const base = input.live?.get(m.id) ?? m.message;
  if (large && !(inLastUnit && keepLastUnitWhole) && m.seq !== undefined) {
    const cap = inLastUnit ? Math.min(input.largeMessageTokens, Math.max(64, Math.floor(avail / 2))) : input.largeMessageTokens;
    const short = shortenMessage(base, { id: m.id, seq: m.seq }, m.tokens, cap);
    return { kind: "message", stored: m, message: short, tokens: defaultTokenCounter.countMessage(short), shortened: true, largeInLastUnit: inLastUnit };
  }
  return { kind: "message", stored: m, message: base, tokens: m.tokens, shortened: false, largeInLastUnit: large && inLastUnit };
}

/**
 * A message the engine already holds (the host's copy and its stored shape) is not read again: after a
 * compaction's publish the whole fresh tail would otherwise be read and decoded from the store. A message
 * large enough to be shown shortened is read (its note names the stored row).
 */
function knownFacts(it: FrontierItem & { kind: "message" }, input: AssembleInput): MessageFacts | null {
  if (it.tokens > input.largeMessageTokens) return null;
  const message = input.live?.get(it.messageId);
  const shape = message ? (it.shape ?? input.shapeOf?.(it.messageId)) : undefined;
  if (!message || !shape) return null;
  return { id: it.messageId, role: shape.role, message, tokens: it.tokens, toolCallId: shape.toolCallId };
}

/** Pieces for a run of frontier items, newest unit kept whole when it fits. Oldest first. */
async function piecesFor(
  store: LcmStoreDriver,
  cache: RowCache,
  items: readonly FrontierItem[],
  input: AssembleInput,
  avail: number,
  continuation = false,
): Promise<Piece[] | null> {
  const stored = new Map<number, MessageFacts>();
  const messageIds: number[] = [];
  const summaryIds: string[] = [];
  for (const it of items) {
    if (it.kind === "summary") summaryIds.push(it.summaryId);
    else {
      const known = knownFacts(it, input);
      if (known) stored.set(it.messageId, known);
      else messageIds.push(it.messageId);
    }
  }
  const [read, summaries] = await Promise.all([cache.messages(store, messageIds), cache.summaries(store, summaryIds)]);
  for (const [id, m] of read) stored.set(id, m);
  // The newest unit (last assistant-with-calls and its results, or the last message) is kept whole when it fits.
  let lastUnitStart = items.length - 1;
  while (lastUnitStart > 0) {
    const it = items[lastUnitStart]!;
    if (it.kind !== "message" || stored.get(it.messageId)?.role !== "tool") break;
    lastUnitStart--;
  }
  // Appended items that start with tool results continue the previous unit: the caller must start over.
  if (continuation && lastUnitStart === 0 && items[0]?.kind === "message" && stored.get(items[0].messageId)?.role === "tool") return null;
  let lastUnitTokens = 0;
  for (let i = Math.max(0, lastUnitStart); i < items.length; i++) lastUnitTokens += items[i]!.tokens;
  const keepWhole = lastUnitTokens <= avail;
  const out: Piece[] = [];
  for (let i = 0; i < items.length; i++) {
    const piece = buildPiece(items[i]!, stored, summaries, input, avail, i >= lastUnitStart, keepWhole);
    if (piece) out.push(piece);
  }
  return out;
}

/** The longest suffix of `pieces` within `avail`, starting on a unit boundary, with every call answered. */
function fit(pieces: Piece[], used: number, avail: number): { pieces: Piece[]; used: number } {
  let start = 0;
  while (start < pieces.length && used > avail) used -= pieces[start++]!.tokens;
  while (start < pieces.length) {
    const p = pieces[start]!;
    if (p.kind !== "message" || p.stored.role !== "tool") break;
    used -= p.tokens; // a result whose call was left out
    start++;
  }
  return { pieces: start ? pieces.slice(start) : pieces, used };
}

function endsOnOpenCall(pieces: readonly Piece[]): boolean {
  for (let i = pieces.length - 1; i >= 0; i--) {
    const p = pieces[i]!;
    if (p.kind !== "message") return false;
    if (p.stored.role === "tool") continue;
    return p.stored.role === "assistant" && toolCallsOf(p.message).length > 0;
  }
  return false;
}

export async function assembleContext(store: LcmStoreDriver, cache: RowCache, input: AssembleInput): Promise<AssembleResult> {
  const counter = defaultTokenCounter;
  const headTokens = counter.countMessages(input.head as Message[]);
  const avail = Math.max(0, input.budget - headTokens - BLOCK_OVERHEAD_TOKENS);
  const conversation = input.known ? input.known.conversation : await store.getConversation(input.conversationId);
  const frontierVersion = conversation?.frontierVersion ?? 0;
  const frontierCount = conversation?.frontierCount ?? 0;
  const key = `${avail}|${input.largeMessageTokens}`;
  // The least a large message can take when shown (its shortened form), for sizing the window.
  const shownCap = Math.min(input.largeMessageTokens, Math.max(64, Math.floor(avail / 2)));

  // Over-fetch: shortening large messages frees room, so ask for more raw tokens than we will show.
  const tail = avail > 0 ? await cache.frontierTail(store, input.conversationId, Math.ceil(avail * 1.25), shownCap, false, input.known) : { items: [], appended: null };
  const prev = cache.assemblyState(input.conversationId);
  let chosen: { pieces: Piece[]; used: number } | null = null;

  if (prev && prev.key === key && tail.appended && (prev.frontierVersion === frontierVersion || tail.appended.length > 0)) {
    // Incremental: only the appended items are new. Not possible when the previous newest unit held a
    // large message (shown differently once it is no longer the newest) or ended on an unanswered call.
    const stale = prev.pieces.some((p) => p.kind === "message" && p.largeInLastUnit) || endsOnOpenCall(prev.pieces);
    if (prev.frontierVersion === frontierVersion) chosen = { pieces: prev.pieces, used: prev.used };
    else if (!stale) {
      const added = await piecesFor(store, cache, tail.appended, input, avail, true);
      if (added) {
        const merged = enforceToolPairs(added);
        let used = prev.used;
        for (const p of merged) used += p.tokens;
        chosen = fit(prev.pieces.concat(merged), used, avail);
      }
    }
  }
  if (!chosen) {
    // A window extended by appends is trimmed by raw tokens; the full path needs the widened one.
    const window = tail.appended ? (await cache.frontierTail(store, input.conversationId, Math.ceil(avail * 1.25), shownCap, true, input.known)).items : tail.items;
    const all = (await piecesFor(store, cache, window, input, avail)) ?? [];
    const pairs = enforceToolPairs(all);
    let used = 0;
    for (const p of pairs) used += p.tokens;
    chosen = fit(pairs, used, avail);
  }
  cache.setAssemblyState(input.conversationId, { key, frontierVersion, pieces: chosen.pieces, used: chosen.used });
  const pieces = chosen.pieces;

  const out: Message[] = [...input.head];
  let tokens = headTokens + chosen.used;
  let run: string[] = [];
  let summariesShown = 0;
  let messagesShown = 0;
  let shortened = 0;
  const omitted = Math.max(0, frontierCount - pieces.length);
  let firstBlock = true;
  const flush = () => {
    if (!run.length) return;
    const block = cache.block(run, firstBlock ? omitted : 0);
    out.push({ role: "user", content: block.text });
    tokens += block.overhead;
    firstBlock = false;
    run = [];
  };
  for (const p of pieces) {
    if (p.kind === "summary") {
      run.push(p.rendered);
      summariesShown++;
      continue;
    }
    flush();
    out.push(p.message);
    messagesShown++;
    if (p.shortened) shortened++;
  }
  flush();
  if (firstBlock && omitted > 0 && pieces.length > 0) {
    // History was left out but no summary is shown: say so, so the model knows to search.
    const block = cache.block([], omitted);
    out.splice(input.head.length, 0, { role: "user", content: block.text });
    tokens += block.overhead;
  }
  return {
    messages: out,
    tokens,
    frontierVersion,
    shownItems: pieces.length,
    omittedItems: omitted,
    summariesShown,
    messagesShown,
    shortened,
  };
}


function enforceToolPairs(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  let i = 0;
  while (i < pieces.length) {
    const p = pieces[i]!;
    if (p.kind === "message" && p.stored.role === "tool") {
      i++; // an orphan result: its call is not in the selection
      continue;
    }
    if (p.kind === "message" && p.stored.role === "assistant" && toolCallsOf(p.message).length > 0) {
      const pending = new Set(toolCallsOf(p.message).map((c) => c.id));
      let j = i + 1;
      const results: Piece[] = [];
      while (j < pieces.length) {
        const r = pieces[j]!;
        if (r.kind !== "message" || r.stored.role !== "tool") break;
        if (r.stored.toolCallId && pending.has(r.stored.toolCallId)) {
          pending.delete(r.stored.toolCallId);
          results.push(r);
        }
        j++;
      }
      const trailing = j >= pieces.length;
      if (pending.size === 0 || trailing) out.push(p, ...results);
      i = j;
      continue;
    }
    out.push(p);
    i++;
  }
  return out;
}
