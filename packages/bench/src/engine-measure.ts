import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import type { LcmEngine } from "@context-engine/lcm";
import { checkContext, CheckFailed, expectExpanded, expectMessageHit, parseGrep } from "./checks.js";
import type { GrepPage } from "./checks.js";
import { deepCopyMessages } from "./clone.js";
import type { ConversationGenerator } from "./generate.js";
import { literalText, PLANTED } from "./generate.js";
import { timed } from "./harness.js";
import { cpuMs } from "./stats.js";
import type { Timing } from "./stats.js";

export type GrepKind = "words" | "rare" | "cjk" | "regex_page" | "regex_oldest" | "expand";

export interface ToolFigures {
  noopCompress: Timing;
  grep: Record<GrepKind, Timing>;
  /** Timed calls of each one-page regex whose page 1 held its planted message (every page together always does: checked). */
  regexPageOnPage1: number;
  regexOldestOnPage1: number;
  /** Regex for a bare literal, every page until the search is complete (finds the oldest copy). */
  regexComplete: Timing & { pages: number; copies: number };
  live: Message[];
}

type ToolCall = (name: string, args: Record<string, unknown>) => Promise<string>;

/**
 * At one history length: `compress()` with nothing new, then every tool call
 * through `handleToolCall` as the host makes it, each answer checked against
 * the planted message it must find.
 */
export async function measureTools(
  engine: LcmEngine,
  session: string,
  gen: ConversationGenerator,
  start: Message[],
  budget: number,
  iterations: { grep: number; regexComplete: number; noop: number },
): Promise<ToolFigures> {
  const size = gen.emitted;
  let live = start;
  const noopCompress = await timed(
    `noop compress ${size}`,
    async () => {
      const copy = deepCopyMessages(live);
      const t = performance.now();
      const c = cpuMs();
      const out = await engine.compress(copy, { currentTokens: defaultTokenCounter.countMessages(live), sessionId: session });
      const sample = { wallMs: performance.now() - t, cpuMs: cpuMs() - c };
      // As the host does: a changed list replaces the live one (the warm-up call takes in the last turn).
      if (out !== copy) live = checkContext(`no-op compress at ${size}`, out, budget);
      return sample;
    },
    { iterations: iterations.noop, warmup: 2 },
  );

  const call: ToolCall = (name, args) => engine.handleToolCall(name, args, { sessionId: session, messages: live });
  const grep: Partial<Record<GrepKind, Timing>> = {};
  const kinds: Array<[GrepKind, Record<string, unknown>, number, string]> = [
    ["words", { query: PLANTED.words.query }, gen.plantedAt.words, PLANTED.words.text],
    ["rare", { query: PLANTED.rare.query }, gen.plantedAt.rare, PLANTED.rare.text],
    ["cjk", { query: PLANTED.cjk.query }, gen.plantedAt.cjk, PLANTED.cjk.text],
  ];
  for (const [kind, args, seq, text] of kinds) {
    // Untimed first: the hit's message really holds the planted text.
    const first = expectMessageHit(`lcm_grep ${kind} at ${size}`, parseGrep(kind, await call("lcm_grep", args)), seq);
    expectExpanded(`lcm_expand ${first.ref}`, await call("lcm_expand", { id: first.ref }), text);
    grep[kind] = await timed(
      `grep ${kind} ${size}`,
      async () => {
        expectMessageHit(`lcm_grep ${kind} at ${size}`, parseGrep(kind, await call("lcm_grep", args)), seq);
      },
      { iterations: iterations.grep, warmup: 1 },
    );
  }
  /**
   * One page of a regex search, timed. Page 1 should hold the planted message (counted per call: a time bound
   * on a loaded machine can stop a page before it); every page together must hold it (checked once, untimed).
   */
  const regexPage = async (kind: GrepKind, query: string, scope: "both" | "messages", seq: number, text: string) => {
    const scoped: ToolCall = (name, args) => call(name, { ...args, scope });
    const hit = expectMessageHit(`lcm_grep ${kind} at ${size}, every page`, await completeRegex(scoped, query), seq);
    expectExpanded(`lcm_expand ${hit.ref}`, await call("lcm_expand", { id: hit.ref }), text);
    const onPage1: boolean[] = [];
    grep[kind] = await timed(
      `grep ${kind} ${size}`,
      async () => {
        const page = parseGrep(kind, await scoped("lcm_grep", { query, mode: "regex" }));
        onPage1.push(page.hits.some((h) => h.seq === seq));
      },
      { iterations: iterations.grep, warmup: 1 },
    );
    return onPage1.slice(-grep[kind]!.n).filter(Boolean).length;
  };
  // A bare literal repeated through history, newest first: page 1 holds the newest copy.
  const regexPageOnPage1 = await regexPage("regex_page", PLANTED.literal.query, "both", gen.plantedAt.literal.at(-1)!, literalText(gen.plantedAt.literal.length - 1));
  // A literal only in the oldest message, no whole word to narrow by: the whole history is scanned.
  const regexOldestOnPage1 = await regexPage("regex_oldest", PLANTED.oldest.query, "messages", gen.plantedAt.oldest, PLANTED.oldest.text);
  const expandRef = `msg_${await refOf(call, gen.plantedAt.words)}`;
  grep.expand = await timed(
    `expand ${size}`,
    async () => expectExpanded(`lcm_expand at ${size}`, await call("lcm_expand", { id: expandRef }), PLANTED.words.text),
    { iterations: iterations.grep, warmup: 1 },
  );

  let pages = 0;
  const copies = gen.plantedAt.literal.length;
  const regexComplete = await timed(
    `regex complete ${size}`,
    async () => {
      const found = await completeRegex(call, PLANTED.literal.query);
      pages = found.pages;
      const seqs = new Set(found.hits.filter((h) => h.type === "message").map((h) => h.seq));
      const oldest = gen.plantedAt.literal[0]!;
      if (!seqs.has(oldest)) throw new CheckFailed(`complete regex at ${size}: the oldest copy (seq ${oldest}) was not found in ${found.pages} pages`);
      const missing = gen.plantedAt.literal.filter((s) => !seqs.has(s));
      if (missing.length) throw new CheckFailed(`complete regex at ${size}: ${missing.length} of ${copies} copies missing (first seq ${missing[0]})`);
    },
    { iterations: iterations.regexComplete, warmup: 1 },
  );
  return { noopCompress, grep: grep as Record<GrepKind, Timing>, regexPageOnPage1, regexOldestOnPage1, regexComplete: { ...regexComplete, pages, copies }, live };
}

/** Every page of a regex search, following the cursor until the engine says it is complete. */
export async function completeRegex(call: ToolCall, query: string, maxPages = 1_000): Promise<GrepPage & { pages: number }> {
  const hits: GrepPage["hits"] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = parseGrep("regex", await call("lcm_grep", { query, mode: "regex", limit: 50, ...(cursor ? { cursor } : {}) }));
    hits.push(...page.hits);
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < maxPages);
  if (cursor) throw new CheckFailed(`regex "${query}" still had a cursor after ${maxPages} pages`);
  return { hits, nextCursor: null, complete: true, pages };
}

/** The message id (for msg_<id>) of the message at a seq, found by the rare-term search that must hit it. */
async function refOf(call: ToolCall, seq: number): Promise<string> {
  const hit = expectMessageHit("words ref", parseGrep("words", await call("lcm_grep", { query: PLANTED.words.query })), seq);
  return hit.ref.replace(/^msg_/, "");
}
