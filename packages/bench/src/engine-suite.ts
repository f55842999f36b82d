import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { checkContext } from "./checks.js";
import { deepCopyMessages } from "./clone.js";
import type { GrepKind, ToolFigures } from "./engine-measure.js";
import { measureTools } from "./engine-measure.js";
import { ConversationGenerator } from "./generate.js";
import { SYSTEM_PROMPT } from "./system-prompt.js";
import { countPgRoundTrips } from "./round-trips.js";
import { cpuMs, summarise, timing } from "./stats.js";
import type { Stats, Timing } from "./stats.js";
import { createInstantSummariser } from "./stub-model.js";

export type { GrepKind } from "./engine-measure.js";
export { completeRegex } from "./engine-measure.js";

/** Where the engine keeps its history: a SQLite file in the run's directory, or a schema of a PostgreSQL database. */
export type BenchStore = { kind: "sqlite" } | { kind: "postgres"; url: string; schema: string };

export interface EngineCheckpoint {
  store: BenchStore["kind"];
  /** Messages in the conversation's history at this point. */
  messages: number;
  /** `onTurnComplete` per turn, on the host's deep copy (the copy itself is not in it). Every Timing has its CPU time and load. */
  ingest: Timing;
  /** `selectContext` per provider request (one per assistant message of a turn), on the host's deep copies. */
  select: Timing;
  /** Requests for which selectContext replaced the list (checked valid and within the window). */
  selections: number;
  /** The host's deep copy of the live list per turn. */
  hostCopy: Timing;
  /** Background preparation started by a turn, until the engine is idle again. */
  background: Timing;
  /** A compaction's whole work: the `compress()` at the threshold plus the background preparation since the previous trigger. */
  trigger: Timing;
  /** The `compress()` at the threshold alone: what the host waits for at a compaction trigger (the judged figure). */
  compress: Timing;
  /** The background work between two triggers (every hook's preparation, awaited apart), summed per compaction. */
  preparedAhead?: Timing;
  /** `compress()` again with nothing new. */
  noopCompress: Timing;
  grep: Record<GrepKind, Timing>;
  /** Timed calls of the one-page regexes (`grep.regex_page`, `grep.regex_oldest`) whose page 1 held the planted message. */
  regexPageOnPage1: number;
  regexOldestOnPage1: number;
  /** Regex for a bare literal, every page until the search is complete (finds the oldest copy). */
  regexComplete: Timing & { pages: number; copies: number };
  /** PostgreSQL only: queries sent to the server per `onTurnComplete`, per `selectContext`, and by the background work of a turn. */
  roundTrips: { ingest: Stats; select: Stats; background: Stats } | null;
  /** Every file of the database (main, -wal, -shm); on PostgreSQL the schema's tables and indexes. */
  dbBytes: number;
  /** The -wal file alone, at rest (LCM empties it once writes pause). */
  walBytes: number;
  /** The -wal file just after the last turn, before the store's pause checkpoint emptied it. */
  walWritingBytes: number;
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
  /** SQLite unless told otherwise. */
  store?: BenchStore;
  contextLength?: number;
  iterations?: { grep?: number; regexComplete?: number; noop?: number };
  /** Time and check the tools and a no-op compress at each size (default true; the CI guard needs only the per-turn figures). */
  tools?: boolean;
  /** `selectContext` before every assistant message while the conversation grows (default true; the CI guard skips it to grow faster). */
  selectWhileGrowing?: boolean;
  /**
   * After each size is measured: continue the conversation elsewhere (through AgentHost) and
   * hand back the live list it leaves and the raw text bytes it added.
   */
  afterCheckpoint?: (at: { engine: LcmEngine; sessionId: string; live: Message[]; messages: number }) => Promise<{ live: Message[]; addedMessages: Message[] }>;
  log?: (line: string) => void;
}

/** LCM's store configuration for a bench store. */
export function storeConfig(store: BenchStore, dir: string): Record<string, unknown> {
  const where = store.kind === "sqlite" ? { database_path: join(dir, "lcm.db") } : { store: store.url, schema: store.schema };
  return { ...lcmConfigFromEnv(), ...where };
}

/** `BENCH_LCM_CONFIG`: a JSON object of LCM settings for the run (e.g. `{"import_in_background_above":2000}`); LCM validates the keys. */
function lcmConfigFromEnv(): Record<string, unknown> {
  const raw = process.env.BENCH_LCM_CONFIG;
  if (!raw) return {};
  const parsed = z.record(z.string(), z.unknown()).safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`BENCH_LCM_CONFIG: expected a JSON object of LCM settings (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

const SESSION = "bench-session";
/**
 * Longer than LCM's pause before a store does its rest work (1 s): SQLite empties its -wal file
 * (lcm src/store/sqlite/wal.ts), PostgreSQL vacuums the tables it rewrites (lcm src/store/postgres/rest.ts).
 */
const STORE_REST_MS = 1_500;
export const ENGINE_SESSION = SESSION;
const SYSTEM: Message = { role: "system", content: SYSTEM_PROMPT };

interface TurnSample {
  startMessages: number;
  ingestMs: number;
  ingestCpu: number;
  ingestTrips: number;
  copyMs: number;
  copyCpu: number;
  selectMs: number[];
  selectCpu: number[];
  selectTrips: number[];
  selected: number;
  backgroundMs: number;
  backgroundCpu: number;
  backgroundTrips: number;
  compressMs?: number;
  compressCpu?: number;
  triggerMs?: number;
  triggerCpu?: number;
  preparedMs?: number;
  preparedCpu?: number;
}

/** Wall, CPU and round trips of one awaited call. */
async function measure<T>(trips: () => number, fn: () => Promise<T>): Promise<{ out: T; ms: number; cpu: number; trips: number }> {
  const r0 = trips();
  const t = performance.now();
  const c = cpuMs();
  const out = await fn();
  return { out, ms: performance.now() - t, cpu: cpuMs() - c, trips: trips() - r0 };
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
  const store = options.store ?? { kind: "sqlite" };
  mkdirSync(options.dir, { recursive: true });
  const counter = store.kind === "postgres" ? countPgRoundTrips() : null;
  const trips = () => counter?.count() ?? 0;
  const engine = new LcmEngine({ contextLength, model: "bench-model", chatModel: createInstantSummariser(), config: storeConfig(store, options.dir) });
  engine.onSessionStart(SESSION, { model: "bench-model", contextLength });
  await engine.updateModel("bench-model", contextLength);
  const budget = engine.thresholdTokens;
  const gen = new ConversationGenerator();
  let live: Message[] = [SYSTEM];
  const samples: TurnSample[] = [];
  const sinceTrigger = { ms: 0, cpu: 0 };
  // The host's running estimate of the live list (it counts new messages, not the whole list, per turn).
  let liveTokens = defaultTokenCounter.countMessages(live);
  const results: EngineCheckpoint[] = [];
  const idle = async (sample: TurnSample) => {
    // Preparation a hook started belongs to the background figures, not to the next timed call.
    const b = await measure(trips, () => engine.whenIdle(SESSION));
    sample.backgroundMs += b.ms;
    sample.backgroundCpu += b.cpu;
    sample.backgroundTrips += b.trips;
  };
  try {
    for (const size of options.sizes) {
      while (gen.emitted < size) {
        const sample: TurnSample = {
          startMessages: gen.emitted,
          ...{ ingestMs: 0, ingestCpu: 0, ingestTrips: 0, copyMs: 0, copyCpu: 0, selectMs: [], selectCpu: [], selectTrips: [], selected: 0 },
          ...{ backgroundMs: 0, backgroundCpu: 0, backgroundTrips: 0 },
        };
        // Turn start: the host's threshold gate.
        const tokens = liveTokens;
        if (engine.shouldCompress(tokens)) {
          const snapshot = deepCopyMessages(live);
          const r = await measure(trips, () => engine.compress(snapshot, { currentTokens: tokens, sessionId: SESSION }));
          sample.compressMs = r.ms;
          sample.compressCpu = r.cpu;
          sample.triggerMs = r.ms + sinceTrigger.ms;
          sample.triggerCpu = r.cpu + sinceTrigger.cpu;
          sample.preparedMs = sinceTrigger.ms;
          sample.preparedCpu = sinceTrigger.cpu;
          sinceTrigger.ms = 0;
          sinceTrigger.cpu = 0;
          live = checkContext(`compress at ${gen.emitted} messages`, r.out, budget);
          liveTokens = defaultTokenCounter.countMessages(live);
          engine.lastPromptTokens = -1;
        }
        const turn = gen.turn();
        // Each provider request of the turn (before every assistant message) goes through selectContext.
        for (let i = 0; i < turn.length; i++) {
          if (turn[i]!.role !== "assistant" || options.selectWhileGrowing === false) continue;
          await selectForRequest(engine, [...live, ...turn.slice(0, i)], turn[0]!, contextLength, sample, trips);
          await idle(sample);
        }
        live.push(...turn);
        const c = await measure(trips, async () => deepCopyMessages(live));
        // As AgentHost does: the turn's id and the messages it added (in the same deep copy).
        const meta = { sessionId: SESSION, turnId: `t${samples.length}`, turnMessages: c.out.slice(c.out.length - turn.length) };
        const r = await measure(trips, () => engine.onTurnComplete(c.out, null, meta));
        await idle(sample);
        Object.assign(sample, { ingestMs: r.ms, ingestCpu: r.cpu, ingestTrips: r.trips, copyMs: c.ms, copyCpu: c.cpu });
        sinceTrigger.ms += sample.backgroundMs;
        sinceTrigger.cpu += sample.backgroundCpu;

        liveTokens += defaultTokenCounter.countMessages(turn);
        engine.updateFromResponse({ prompt_tokens: liveTokens, completion_tokens: 50, total_tokens: liveTokens + 50 });
        samples.push(sample);
      }
      log(`engine (${store.kind}): ${gen.emitted} messages, measuring`);
      // The no-op compress is sub-millisecond: 200 calls give its p95 more than the one or two garbage collections 30 would.
      const it = { grep: 20, regexComplete: 10, noop: 200, ...options.iterations };
      const tools = options.tools === false ? noTools(live) : await measureTools(engine, SESSION, gen, live, budget, it);
      live = tools.live;
      results.push(await checkpoint(engine, gen, samples, size, tools, store, counter !== null));
      if (options.afterCheckpoint) {
        const after = await options.afterCheckpoint({ engine, sessionId: SESSION, live, messages: gen.emitted });
        live = after.live;
        gen.count(after.addedMessages);
      }
      liveTokens = defaultTokenCounter.countMessages(live);
      const p = results[results.length - 1]!;
      log(
        `engine (${store.kind}): ${size} ingest p50 ${p.ingest.median.toFixed(2)} ms (CPU ${p.ingest.cpu.median.toFixed(2)}), trigger (compress at the threshold) p95 ${p.compress.p95.toFixed(1)} ms (CPU ${p.compress.cpu.p95.toFixed(1)}, n=${p.compress.n}), with the background work since the previous one ${p.trigger.p95.toFixed(1)} ms, ` +
          `regex complete p95 ${p.regexComplete.p95.toFixed(1)} ms, db ${p.dbRatio.toFixed(2)}× raw, load ${p.ingest.load}`,
      );
    }
  } finally {
    await engine.close();
  }
  return results;
}

/** The figures at one size: per-turn figures from the last stretch before it, triggers from its second half. */
async function checkpoint(
  engine: LcmEngine,
  gen: ConversationGenerator,
  samples: TurnSample[],
  size: number,
  tools: ToolFigures,
  store: BenchStore,
  counted: boolean,
): Promise<EngineCheckpoint> {
  const ingestFrom = size - Math.min(size / 2, 1_000);
  const recent = samples.filter((s) => s.startMessages >= ingestFrom);
  const triggers = samples.filter((s) => s.startMessages >= size / 2 && s.triggerMs !== undefined);
  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  // The size at rest: LCM's stores do their rest work once writes pause for a second (SQLite empties
  // its -wal file, PostgreSQL vacuums); how large the SQLite log was while the turns wrote is reported beside it.
  const writing = await engine.store.stats();
  const walWritingBytes = store.kind === "sqlite" ? fileSize(`${writing.path}-wal`) : 0;
  await new Promise((r) => setTimeout(r, STORE_REST_MS));
  const stats = await engine.store.stats();
  const dbBytes = stats.fileBytes;
  const walBytes = store.kind === "sqlite" ? fileSize(`${stats.path}-wal`) : 0;
  return {
    store: store.kind,
    messages: gen.emitted,
    ingest: timing(recent.map((s) => s.ingestMs), recent.map((s) => s.ingestCpu)),
    hostCopy: timing(recent.map((s) => s.copyMs), recent.map((s) => s.copyCpu)),
    select: timing(recent.flatMap((s) => s.selectMs), recent.flatMap((s) => s.selectCpu)),
    selections: samples.reduce((n, s) => n + s.selected, 0),
    background: timing(recent.map((s) => s.backgroundMs), recent.map((s) => s.backgroundCpu)),
    trigger: timing(triggers.map((s) => s.triggerMs!), triggers.map((s) => s.triggerCpu!)),
    compress: timing(triggers.map((s) => s.compressMs!), triggers.map((s) => s.compressCpu!)),
    preparedAhead: timing(triggers.map((s) => s.preparedMs!), triggers.map((s) => s.preparedCpu!)),
    noopCompress: tools.noopCompress,
    grep: tools.grep,
    regexPageOnPage1: tools.regexPageOnPage1,
    regexOldestOnPage1: tools.regexOldestOnPage1,
    regexComplete: tools.regexComplete,
    roundTrips: counted
      ? {
          ingest: summarise(recent.map((s) => s.ingestTrips)),
          select: summarise(recent.flatMap((s) => s.selectTrips)),
          background: summarise(recent.map((s) => s.backgroundTrips)),
        }
      : null,
    dbBytes,
    walBytes,
    walWritingBytes,
    rawBytes: gen.rawBytes,
    dbRatio: dbBytes / gen.rawBytes,
    heapBytes: mem.heapUsed,
    rssBytes: mem.rss,
    liveMessages: tools.live.length,
    compactions: engine.compressionCount,
  };
}

/** One provider request as the host runs it: deep copies of the request, the conversation and the incoming message. */
async function selectForRequest(engine: LcmEngine, request: Message[], incoming: Message, window: number, sample: TurnSample, trips: () => number): Promise<void> {
  const forEngine = deepCopyMessages(request);
  const conversationMessages = deepCopyMessages(request);
  const [incomingCopy] = deepCopyMessages([incoming]);
  const r = await measure(trips, () => engine.selectContext(forEngine, { conversationMessages, incomingMessage: incomingCopy!, budgetTokens: window, sessionId: SESSION }));
  sample.selectMs.push(r.ms);
  sample.selectCpu.push(r.cpu);
  sample.selectTrips.push(r.trips);
  if (r.out) {
    checkContext(`selectContext at ${sample.startMessages}`, r.out, window);
    sample.selected++;
  }
}

/** Empty tool figures, when the tools are not measured. */
function noTools(live: Message[]): ToolFigures {
  const none = timing([], []);
  const grep = { words: none, rare: none, cjk: none, regex_page: none, regex_oldest: none, expand: none };
  return { noopCompress: none, grep, regexPageOnPage1: 0, regexOldestOnPage1: 0, regexComplete: { ...none, pages: 0, copies: 0 }, live };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
