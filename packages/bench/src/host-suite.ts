import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { ChatModelRequest, ContextEngine, Message } from "@context-engine/core";
import { AgentHost, createOpenAIChatModel } from "@context-engine/host";
import type { Session } from "@context-engine/host";
import { LcmEngine } from "@context-engine/lcm";
import { checkContext } from "./checks.js";
import { ConversationGenerator } from "./generate.js";
import type { BenchStore } from "./engine-suite.js";
import { storeConfig } from "./engine-suite.js";
import { timed } from "./harness.js";
import { LoopbackChatServer } from "./loopback-server.js";
import { countPgRoundTrips } from "./round-trips.js";
import { cpuMs, loadNow, summarise } from "./stats.js";
import type { Stats, Timing } from "./stats.js";
import { profiled } from "./profile.js";
import { clockHooks, type HookClock } from "./hook-clock.js";
import { createInstantSummariser } from "./stub-model.js";
import { SYSTEM_PROMPT } from "./system-prompt.js";

export type BundledEngine = "compressor" | "lcm";

export interface HostResult {
  engine: BundledEngine;
  /** LCM's store (the compressor keeps nothing). */
  store: BenchStore["kind"] | null;
  /**
   * `imported`: the session is opened with `history` messages at once (the first send hands them all to the engine).
   * `resumed`: the session continues the conversation the engine suite grew turn by turn (LCM's store already holds it).
   */
  mode: "imported" | "resumed";
  /** Messages of history when the timed turns start. */
  history: number;
  /** The first send of the session (for `imported`, the engine takes in the whole history there): the host's own wall and CPU time. */
  firstTurnMs: number;
  firstTurnCpuMs: number;
  /**
   * The part of the first turn spent inside the engine's hooks (hook-clock.ts), wall and CPU: what the engine
   * costs a host; the rest of `firstTurnMs` is the host's own work (its ledger, token counts, the request).
   */
  firstTurnEngineMs: number;
  firstTurnEngineCpuMs: number;
  /** LCM: the engine's background CPU time during the first turn (outside the provider call), left out of `firstTurnCpuMs`. */
  firstTurnBackgroundCpuMs: number;
  /** 1-minute load average when the first turn ended. */
  firstTurnLoad: number;
  /**
   * Per later turn: the host's own time (send minus the provider call), with its CPU time and the load. The CPU
   * time leaves out the engine's background work that ran during the turn (LCM's work clock): that is in
   * `perTurnBackgroundCpu`, beside it.
   */
  perTurn: Timing;
  /** LCM: CPU time of the engine's background slices (drain, index catch-up) that ran during a later turn, outside the provider call. */
  perTurnBackgroundCpu: Stats | null;
  /** Per later turn, wall time of `send` including the loopback provider call. */
  perTurnWall: Stats;
  /** PostgreSQL only: queries sent to the server per later turn (the engine's hooks and background work of the turn). */
  roundTrips: Stats | null;
  liveMessages: number;
  /**
   * LCM, imported: the stored frontier against the threshold after the timed turns, and how long the engine's
   * scheduled drain still ran after them (wall, CPU, load) until the frontier was under the threshold.
   */
  backlog?: BacklogFigures;
}

export interface BacklogFigures {
  /** Frontier tokens when the timed turns ended, and when the drain had stopped. */
  frontierAfterTurns: number;
  frontierDrained: number;
  threshold: number;
  /** Time from the end of the timed turns until the engine was idle (its drain finished). */
  drainMs: number;
  drainCpuMs: number;
  load: number;
}

export interface HostSuiteOptions {
  sizes: number[];
  engines?: BundledEngine[];
  dir: string;
  /** LCM's store (SQLite unless told otherwise). */
  store?: BenchStore;
  contextLength?: number;
  turns?: number;
  server?: LoopbackChatServer;
  log?: (line: string) => void;
}

function makeEngine(kind: BundledEngine, dir: string, contextLength: number, store: BenchStore): ContextEngine {
  const chatModel = createInstantSummariser();
  if (kind === "compressor") return new ContextCompressor({ contextLength, model: "bench-model", chatModel });
  return new LcmEngine({ contextLength, model: "bench-model", chatModel, config: storeConfig(store, dir) });
}

/** CPU time (ms) of the engine's background work so far: LCM's work clock; nothing for other engines. */
function backgroundClock(engine: ContextEngine): () => number {
  return engine instanceof LcmEngine ? () => engine.backgroundCpuMs : () => 0;
}

/** What a turn's provider call cost, counted by the host's chat model wrapper. */
interface ProviderClock {
  providerMs: number;
  providerCpu: number;
  /** The engine's background CPU time that ran during the provider call (already inside `providerCpu`). */
  providerBackgroundCpu: number;
}

/** A host on the loopback server whose provider time is counted, so the host's own time can be told apart. */
function makeHost(engine: ContextEngine, server: LoopbackChatServer) {
  const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "bench-model", maxRetries: 0 });
  // The loopback server runs in this process: its CPU time is counted as provider time too.
  const clock: ProviderClock = { providerMs: 0, providerCpu: 0, providerBackgroundCpu: 0 };
  const background = backgroundClock(engine);
  const chatModel = {
    model: model.model,
    complete: model.complete,
    async completeOnce(request: ChatModelRequest) {
      const t = performance.now();
      const c = cpuMs();
      const b = background();
      try {
        return await model.completeOnce(request);
      } finally {
        clock.providerMs += performance.now() - t;
        clock.providerCpu += cpuMs() - c;
        clock.providerBackgroundCpu += background() - b;
      }
    },
  };
  return { host: new AgentHost({ engine, chatModel, config: { contextTimeoutSeconds: 600 } }), clock, background };
}

/**
 * Time `turns` sends (after the first and two warm-up ones); every turn must complete and leave a valid list.
 * A turn's own CPU time leaves out the provider call and the engine's background work that ran during the
 * turn outside it (the part inside the provider call is already out with it); that background CPU time is
 * reported beside, per turn. Wall time stays what the host waited, background slices included.
 */
async function timeTurns(session: Session, host: { clock: ProviderClock; background: () => number; hooks: HookClock }, label: string, contextLength: number, turns: number, trips: () => number) {
  const { clock, background, hooks } = host;
  let i = 0;
  const added: Message[] = [];
  const send = async () => {
    clock.providerMs = 0;
    clock.providerCpu = 0;
    clock.providerBackgroundCpu = 0;
    const r0 = trips();
    hooks.take();
    const b = background();
    const t = performance.now();
    const c = cpuMs();
    const result = await session.send(`Question ${i++}: what changed in src/api since the last release?`);
    const wall = performance.now() - t;
    const cpu = cpuMs() - c;
    const backgroundCpu = background() - b - clock.providerBackgroundCpu;
    const engine = hooks.take();
    if (result.status !== "completed") throw new Error(`${label}: turn ${result.status} (${result.exitReason})`);
    added.push(...result.newMessages);
    checkContext(label, session.messages, contextLength);
    return { wall, own: wall - clock.providerMs, ownCpu: cpu - clock.providerCpu - backgroundCpu, backgroundCpu, trips: trips() - r0, engine };
  };
  const first = await profiled(send);
  const firstLoad = loadNow();
  const walls: number[] = [];
  const roundTrips: number[] = [];
  const backgroundCpu: number[] = [];
  const perTurn = await timed(
    label,
    async () => {
      const r = await send();
      walls.push(r.wall);
      roundTrips.push(r.trips);
      backgroundCpu.push(r.backgroundCpu);
      return { wallMs: r.own, cpuMs: r.ownCpu };
    },
    { iterations: turns, warmup: 2 },
  );
  return {
    added,
    figures: {
      firstTurnMs: first.own,
      firstTurnCpuMs: first.ownCpu,
      firstTurnEngineMs: first.engine.wallMs,
      firstTurnEngineCpuMs: first.engine.cpuMs,
      firstTurnBackgroundCpuMs: first.backgroundCpu,
      firstTurnLoad: firstLoad,
      perTurn,
      perTurnWall: summarise(walls.slice(-perTurn.n)),
      roundTrips: summarise(roundTrips.slice(-perTurn.n)),
      perTurnBackgroundCpu: summarise(backgroundCpu.slice(-perTurn.n)),
    },
  };
}

/** Queries to PostgreSQL so far when LCM runs on it (0 on SQLite, nothing counted). */
function tripsFor(store: BenchStore): { trips: () => number; counted: boolean } {
  if (store.kind !== "postgres") return { trips: () => 0, counted: false };
  const counter = countPgRoundTrips();
  return { trips: () => counter.count(), counted: true };
}

/**
 * The host's per-turn cost with each bundled engine, sessions opened with
 * `history` messages of the same conversation: the real AgentHost and
 * OpenAI client against a loopback server. The first send (the engine takes
 * in the history) is reported apart; later turns are timed with tinybench,
 * the provider call subtracted.
 */
export async function runHostSuite(options: HostSuiteOptions): Promise<HostResult[]> {
  const log = options.log ?? (() => {});
  const contextLength = options.contextLength ?? 128_000;
  const server = options.server ?? (await new LoopbackChatServer().start());
  const results: HostResult[] = [];
  try {
    const store = options.store ?? { kind: "sqlite" };
    for (const kind of options.engines ?? ["compressor", "lcm"]) {
      const { trips, counted } = tripsFor(kind === "lcm" ? store : { kind: "sqlite" });
      for (const size of options.sizes) {
        const dir = join(options.dir, `host-${kind}-${size}`);
        mkdirSync(dir, { recursive: true });
        const engine = makeEngine(kind, dir, contextLength, store);
        const hooks = clockHooks(engine);
        const { host, clock, background } = makeHost(engine, server);
        const history = new ConversationGenerator().until(size);
        try {
          // A session id of its own per run: a PostgreSQL schema may hold earlier runs' sessions.
          const sessionId = `host-${kind}-${size}-${process.pid}-${Date.now().toString(36)}`;
          const session = await host.openSession({ sessionId, model: "bench-model", contextLength, dataDir: dir, systemPrompt: SYSTEM_PROMPT, history });
          const t = await timeTurns(session, { clock, background, hooks }, `host ${kind} imported ${size}`, contextLength, options.turns ?? 20, trips);
          const lcmStore = kind === "lcm" ? store.kind : null;
          const backlog = engine instanceof LcmEngine ? await waitForDrain(engine, sessionId) : undefined;
          results.push({
            engine: kind,
            store: lcmStore,
            mode: "imported",
            history: size,
            ...t.figures,
            roundTrips: counted ? t.figures.roundTrips : null,
            perTurnBackgroundCpu: kind === "lcm" ? t.figures.perTurnBackgroundCpu : null,
            liveMessages: session.messages.length,
            ...(backlog ? { backlog } : {}),
          });
        } finally {
          await host.close();
          await (engine as { close?: () => unknown }).close?.();
        }
        const r = results[results.length - 1]!;
        if (r.backlog) log(`host: ${kind} imported ${size}: ${backlogLine(r.backlog)}`);
        log(
          `host: ${kind}${r.store ? ` (${r.store})` : ""} imported ${size}: first turn ${r.firstTurnMs.toFixed(0)} ms (CPU ${r.firstTurnCpuMs.toFixed(0)}; in the engine's hooks ${r.firstTurnEngineMs.toFixed(0)} ms, CPU ${r.firstTurnEngineCpuMs.toFixed(0)}), ` +
            `then p50 ${r.perTurn.median.toFixed(2)} ms / p95 ${r.perTurn.p95.toFixed(2)} ms (CPU ${r.perTurn.cpu.median.toFixed(2)} / ${r.perTurn.cpu.p95.toFixed(2)}` +
            `${r.perTurnBackgroundCpu ? `; background beside it ${r.perTurnBackgroundCpu.median.toFixed(2)} / ${r.perTurnBackgroundCpu.p95.toFixed(2)}` : ""}), load ${r.perTurn.load}`,
        );
      }
    }
  } finally {
    if (!options.server) await server.stop();
  }
  return results;
}

/** Frontier tokens of the engine's session as it last read them (the drain reads them after every run). */
function frontierOf(engine: LcmEngine): number {
  const lcm = (engine.getStatus() as { lcm?: { session?: { frontierTokens?: number } } }).lcm;
  return lcm?.session?.frontierTokens ?? 0;
}

/** After the timed turns: how far the backlog is, and how long the engine's drain still runs until it is done. */
async function waitForDrain(engine: LcmEngine, sessionId: string): Promise<BacklogFigures> {
  const frontierAfterTurns = frontierOf(engine);
  const t = performance.now();
  const c = cpuMs();
  await engine.whenIdle(sessionId);
  return { frontierAfterTurns, frontierDrained: frontierOf(engine), threshold: engine.thresholdTokens, drainMs: performance.now() - t, drainCpuMs: cpuMs() - c, load: loadNow() };
}

export function backlogLine(b: BacklogFigures): string {
  const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
  return `backlog ${k(b.frontierAfterTurns)} tokens after the turns, ${k(b.frontierDrained)} after the drain (threshold ${k(b.threshold)}): drain went on ${b.drainMs.toFixed(0)} ms (CPU ${b.drainCpuMs.toFixed(0)}) @ load ${b.load}`;
}

export { SYSTEM_PROMPT };

/**
 * Continue, through a real AgentHost, the conversation an engine grew turn by
 * turn: the session reuses the engine's session id and the host's live list.
 * Returns the figures and the live list after the host's turns (the engine
 * suite carries on from it).
 */
export async function resumeThroughHost(
  engine: LcmEngine,
  sessionId: string,
  live: readonly Message[],
  historyMessages: number,
  server: LoopbackChatServer,
  contextLength: number,
  turns: number,
  store: BenchStore = { kind: "sqlite" },
): Promise<{ result: HostResult; live: Message[]; addedMessages: Message[] }> {
  const { trips, counted } = tripsFor(store);
  const hooks = clockHooks(engine);
  const { host, clock, background } = makeHost(engine, server);
  const history = live.filter((m, i) => !(i === 0 && m.role === "system"));
  const session = await host.openSession({ sessionId, model: "bench-model", contextLength, systemPrompt: SYSTEM_PROMPT, history });
  const t = await timeTurns(session, { clock, background, hooks }, `host lcm${store.kind === "postgres" ? " (postgres)" : ""} resumed ${historyMessages}`, contextLength, turns, trips);
  // The host's last onTurnComplete runs after its send resolved: the engine suite continues once it has settled, as the
  // host's own next operation would (two drivers writing one conversation at once would be another benchmark).
  await session.idle();
  // The host is left open: closing it would end the engine's session, which the engine suite continues.
  return {
    result: {
      engine: "lcm",
      store: store.kind,
      mode: "resumed",
      history: historyMessages,
      ...t.figures,
      roundTrips: counted ? t.figures.roundTrips : null,
      liveMessages: session.messages.length,
    },
    live: [...session.messages],
    addedMessages: t.added,
  };
}
