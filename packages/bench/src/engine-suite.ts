import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { checkContext, CheckFailed, expectExpanded, expectMessageHit, parseGrep } from "./checks.js";
import type { GrepPage } from "./checks.js";
import { deepCopyMessages } from "./clone.js";
import { ConversationGenerator, literalText, PLANTED } from "./generate.js";
import { timed } from "./harness.js";
import { summarise } from "./stats.js";
import type { Stats } from "./stats.js";
import { createInstantSummariser } from "./stub-model.js";
import { SYSTEM_PROMPT } from "./host-suite.js";

export type GrepKind = "words" | "rare" | "cjk" | "regex_page" | "expand";

export interface EngineCheckpoint {
  /** Messages in the conversation's history at this point. */
  messages: number;
  /** `onTurnComplete` per turn, on the host's deep copy (the copy itself is not in it). */
  ingest: Stats;
  /** `selectContext` per provider request (one per assistant message of a turn), on the host's deep copies. */
  select: Stats;
  /** Requests for which selectContext replaced the list (checked valid and within the window). */
  selections: number;
  /** The host's deep copy of the live list per turn. */
  hostCopy: Stats;
  /** CPU time (user + system) of the same calls: less sensitive to a loaded machine than wall time. */
  ingestCpu: Stats;
  /** Background preparation started by a turn, until the engine is idle again. */
  background: Stats;
  /** A compaction trigger: the `compress()` at the threshold plus the background preparation since the previous trigger. */
  trigger: Stats;
  triggerCpu: Stats;
  /** The `compress()` at the threshold alone. */
  compress: Stats;
  /** `compress()` again with nothing new. */
  noopCompress: Stats;
  noopCompressCpu: Stats;
  grep: Record<GrepKind, Stats>;
  /** Regex for a bare literal, every page until the search is complete (finds the oldest copy). */
  regexComplete: Stats & { pages: number; copies: number };
  regexCompleteCpu: Stats;
  /** Every file of the database (main, -wal, -shm). */
  dbBytes: number;
  /** The -wal file alone (SQLite reuses it; it is not trimmed after checkpoints). */
  walBytes: number;
  rawBytes: number;
  dbRatio: number;
  heapBytes: number;
  rssBytes: number;
  /** Messages in the host's live list (after compactions). */
  liveMessages: number;
  compactions: number;
}

export interface EngineSuiteOptions {
  /** History lengths to measure at, ascending (one conversation grows through them). */
  sizes: number[];
  dir: string;
  contextLength?: number;
  iterations?: { grep?: number; regexComplete?: number; noop?: number };
  /**
   * After each size is measured: continue the conversation elsewhere (through AgentHost) and
   * hand back the live list it leaves and the raw text bytes it added.
   */
  afterCheckpoint?: (at: { engine: LcmEngine; sessionId: string; live: Message[]; messages: number }) => Promise<{ live: Message[]; addedMessages: Message[] }>;
  log?: (line: string) => void;
}

const SESSION = "bench-session";
export const ENGINE_SESSION = SESSION;
const SYSTEM: Message = { role: "system", content: SYSTEM_PROMPT };

interface TurnSample {
  startMessages: number;
  ingestMs: number;
  ingestCpu: number;
  copyMs: number;
  selectMs: number[];
  selected: number;
  backgroundMs: number;
  backgroundCpu: number;
  compressMs?: number;
  triggerMs?: number;
  triggerCpu?: number;
}

/**
 * Drives the LCM engine the way AgentHost does, one turn at a time, on one
 * conversation that grows through every size: at turn start the threshold
 * gate (`shouldCompress` → `compress` on a deep copy, whose result replaces
 * the live list), then the turn's messages, then `onTurnComplete` on a deep
 * copy. At each size the tools and a no-op compress are timed and checked.
 */
export async function runEngineSuite(options: EngineSuiteOptions): Promise<EngineCheckpoint[]> {
  const log = options.log ?? (() => {});
  const contextLength = options.contextLength ?? 128_000;
  mkdirSync(options.dir, { recursive: true });
  const engine = new LcmEngine({
    contextLength,
    model: "bench-model",
    chatModel: createInstantSummariser(),
    config: { database_path: join(options.dir, "lcm.db") },
  });
  engine.onSessionStart(SESSION, { model: "bench-model", contextLength });
  await engine.updateModel("bench-model", contextLength);
  const budget = engine.thresholdTokens;
  const gen = new ConversationGenerator();
  let live: Message[] = [SYSTEM];
  const samples: TurnSample[] = [];
  let backgroundSinceTrigger = 0;
  let backgroundCpuSinceTrigger = 0;
  // The host's running estimate of the live list (it counts new messages, not the whole list, per turn).
  let liveTokens = defaultTokenCounter.countMessages(live);
  const results: EngineCheckpoint[] = [];
  try {
    for (const size of options.sizes) {
      while (gen.emitted < size) {
        const sample: TurnSample = { startMessages: gen.emitted, ingestMs: 0, ingestCpu: 0, copyMs: 0, selectMs: [], selected: 0, backgroundMs: 0, backgroundCpu: 0 };
        // Turn start: the host's threshold gate.
        const tokens = liveTokens;
        if (engine.shouldCompress(tokens)) {
          const snapshot = deepCopyMessages(live);
          const t = performance.now();
          const tc = cpuMs();
          const out = await engine.compress(snapshot, { currentTokens: tokens, sessionId: SESSION });
          sample.compressMs = performance.now() - t;
          sample.triggerMs = sample.compressMs + backgroundSinceTrigger;
          sample.triggerCpu = cpuMs() - tc + backgroundCpuSinceTrigger;
          backgroundSinceTrigger = 0;
          backgroundCpuSinceTrigger = 0;
          live = checkContext(`compress at ${gen.emitted} messages`, out, budget);
          liveTokens = defaultTokenCounter.countMessages(live);
          engine.lastPromptTokens = -1;
        }
        const turn = gen.turn();
        // Each provider request of the turn (before every assistant message) goes through selectContext.
        for (let i = 0; i < turn.length; i++) {
          if (turn[i]!.role === "assistant") await selectForRequest(engine, [...live, ...turn.slice(0, i)], turn[0]!, contextLength, sample);
        }
        live.push(...turn);
        const c = performance.now();
        const copy = deepCopyMessages(live);
        const t = performance.now();
        const tc = cpuMs();
        await engine.onTurnComplete(copy, null, { sessionId: SESSION, turnId: `t${samples.length}` });
        const b = performance.now();
        const bc = cpuMs();
        await engine.whenIdle(SESSION);
        sample.backgroundMs += performance.now() - b;
        sample.backgroundCpu += cpuMs() - bc;
        sample.ingestMs = b - t;
        sample.ingestCpu = bc - tc;
        sample.copyMs = t - c;
        backgroundSinceTrigger += sample.backgroundMs;
        backgroundCpuSinceTrigger += sample.backgroundCpu;

        liveTokens += defaultTokenCounter.countMessages(turn);
        engine.updateFromResponse({ prompt_tokens: liveTokens, completion_tokens: 50, total_tokens: liveTokens + 50 });
        samples.push(sample);
      }
      log(`engine: ${gen.emitted} messages, measuring`);
      const state = { live };
      results.push(await measureCheckpoint(engine, gen, state, samples, size, budget, options));
      live = state.live;
      if (options.afterCheckpoint) {
        const after = await options.afterCheckpoint({ engine, sessionId: SESSION, live, messages: gen.emitted });
        live = after.live;
        gen.count(after.addedMessages);
      }
      liveTokens = defaultTokenCounter.countMessages(live);
      const r = results[results.length - 1]!;
      log(`engine: ${size} ingest p50 ${r.ingest.median.toFixed(2)} ms, trigger p95 ${r.trigger.p95.toFixed(1)} ms (n=${r.trigger.n}), regex complete p95 ${r.regexComplete.p95.toFixed(1)} ms, db ${r.dbRatio.toFixed(2)}× raw`);
    }
  } finally {
    engine.close();
  }
  return results;
}

async function measureCheckpoint(
  engine: LcmEngine,
  gen: ConversationGenerator,
  state: { live: Message[] },
  samples: TurnSample[],
  size: number,
  budget: number,
  options: EngineSuiteOptions,
): Promise<EngineCheckpoint> {
  const it = { grep: 20, regexComplete: 10, noop: 30, ...options.iterations };
  // Per-turn figures from the last stretch before this size; triggers from its second half.
  const ingestFrom = size - Math.min(size / 2, 1_000);
  const recent = samples.filter((s) => s.startMessages >= ingestFrom);
  const triggers = samples.filter((s) => s.startMessages >= size / 2 && s.triggerMs !== undefined);

  const noopCpu: number[] = [];
  const noopCompress = await timed(
    `noop compress ${size}`,
    async () => {
      const copy = deepCopyMessages(state.live);
      const t = performance.now();
      const tc = cpuMs();
      const out = await engine.compress(copy, { currentTokens: defaultTokenCounter.countMessages(state.live), sessionId: SESSION });
      const d = performance.now() - t;
      noopCpu.push(cpuMs() - tc);
      // As the host does: a changed list replaces the live one (the warm-up call takes in the last turn).
      if (out !== copy) state.live = checkContext(`no-op compress at ${size}`, out, budget);
      return { overriddenDuration: d };
    },
    { iterations: it.noop, warmup: 2 },
  );

  const live = state.live;
  const call = (name: string, args: Record<string, unknown>) => engine.handleToolCall(name, args, { sessionId: SESSION, messages: live });
  const grep: Partial<Record<GrepKind, Stats>> = {};
  const kinds: Array<[GrepKind, Record<string, unknown>, number, string]> = [
    ["words", { query: PLANTED.words.query }, gen.plantedAt.words, PLANTED.words.text],
    ["rare", { query: PLANTED.rare.query }, gen.plantedAt.rare, PLANTED.rare.text],
    ["cjk", { query: PLANTED.cjk.query }, gen.plantedAt.cjk, PLANTED.cjk.text],
    // One page of a regex for a bare literal: newest first, so it finds the newest copy.
    ["regex_page", { query: PLANTED.literal.query, mode: "regex" }, gen.plantedAt.literal.at(-1)!, literalText(gen.plantedAt.literal.length - 1)],
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
      { iterations: it.grep, warmup: 1 },
    );
  }
  const expandRef = `msg_${await refOf(call, gen.plantedAt.words)}`;
  grep.expand = await timed(
    `expand ${size}`,
    async () => expectExpanded(`lcm_expand at ${size}`, await call("lcm_expand", { id: expandRef }), PLANTED.words.text),
    { iterations: it.grep, warmup: 1 },
  );

  let pages = 0;
  const copies = gen.plantedAt.literal.length;
  const regexCpu: number[] = [];
  const regexComplete = await timed(
    `regex complete ${size}`,
    async () => {
      const tc = cpuMs();
      const found = await completeRegex(call, PLANTED.literal.query);
      regexCpu.push(cpuMs() - tc);
      pages = found.pages;
      const seqs = new Set(found.hits.filter((h) => h.type === "message").map((h) => h.seq));
      const oldest = gen.plantedAt.literal[0]!;
      if (!seqs.has(oldest)) throw new CheckFailed(`complete regex at ${size}: the oldest copy (seq ${oldest}) was not found in ${found.pages} pages`);
      const missing = gen.plantedAt.literal.filter((s) => !seqs.has(s));
      if (missing.length) throw new CheckFailed(`complete regex at ${size}: ${missing.length} of ${copies} copies missing (first seq ${missing[0]})`);
    },
    { iterations: it.regexComplete, warmup: 1 },
  );

  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  const stats = await engine.store.stats();
  const dbBytes = stats.fileBytes;
  const walBytes = fileSize(`${stats.path}-wal`);
  return {
    messages: gen.emitted,
    ingest: summarise(recent.map((s) => s.ingestMs)),
    ingestCpu: summarise(recent.map((s) => s.ingestCpu)),
    hostCopy: summarise(recent.map((s) => s.copyMs)),
    select: summarise(recent.flatMap((s) => s.selectMs)),
    selections: samples.reduce((n, s) => n + s.selected, 0),
    background: summarise(recent.map((s) => s.backgroundMs)),
    trigger: summarise(triggers.map((s) => s.triggerMs!)),
    triggerCpu: summarise(triggers.map((s) => s.triggerCpu!)),
    compress: summarise(triggers.map((s) => s.compressMs!)),
    noopCompress,
    // The timed iterations only (the warm-up ones come first).
    noopCompressCpu: summarise(noopCpu.slice(-noopCompress.n)),
    grep: grep as Record<GrepKind, Stats>,
    regexComplete: { ...regexComplete, pages, copies },
    regexCompleteCpu: summarise(regexCpu.slice(-regexComplete.n)),
    dbBytes,
    walBytes,
    rawBytes: gen.rawBytes,
    dbRatio: dbBytes / gen.rawBytes,
    heapBytes: mem.heapUsed,
    rssBytes: mem.rss,
    liveMessages: live.length,
    compactions: engine.compressionCount,
  };
}

/** One provider request as the host runs it: deep copies of the request, the conversation and the incoming message. */
async function selectForRequest(engine: LcmEngine, request: Message[], incoming: Message, window: number, sample: TurnSample): Promise<void> {
  const forEngine = deepCopyMessages(request);
  const conversationMessages = deepCopyMessages(request);
  const [incomingCopy] = deepCopyMessages([incoming]);
  const t = performance.now();
  const out = await engine.selectContext(forEngine, { conversationMessages, incomingMessage: incomingCopy!, budgetTokens: window, sessionId: SESSION });
  sample.selectMs.push(performance.now() - t);
  // Preparation it started belongs to the background figures, not to the next timed call.
  const b = performance.now();
  const bc = cpuMs();
  await engine.whenIdle(SESSION);
  sample.backgroundMs += performance.now() - b;
  sample.backgroundCpu += cpuMs() - bc;
  if (out) {
    checkContext(`selectContext at ${sample.startMessages}`, out, window);
    sample.selected++;
  }
}

type ToolCall = (name: string, args: Record<string, unknown>) => Promise<string>;

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

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** CPU time of this process so far, in ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
