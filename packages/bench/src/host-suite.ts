import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { ChatModelRequest, ContextEngine, Message } from "@context-engine/core";
import { AgentHost, createOpenAIChatModel } from "@context-engine/host";
import type { Session } from "@context-engine/host";
import { LcmEngine } from "@context-engine/lcm";
import { checkContext } from "./checks.js";
import { ConversationGenerator } from "./generate.js";
import { timed } from "./harness.js";
import { LoopbackChatServer } from "./loopback-server.js";
import { summarise } from "./stats.js";
import type { Stats } from "./stats.js";
import { createInstantSummariser } from "./stub-model.js";

export type BundledEngine = "compressor" | "lcm";

export interface HostResult {
  engine: BundledEngine;
  /**
   * `imported`: the session is opened with `history` messages at once (the first send hands them all to the engine).
   * `resumed`: the session continues the conversation the engine suite grew turn by turn (LCM's store already holds it).
   */
  mode: "imported" | "resumed";
  /** Messages of history when the timed turns start. */
  history: number;
  /** The first send of the session (for `imported`, the engine takes in the whole history there). */
  firstTurnMs: number;
  /** Per later turn: the host's own time (send minus the provider call). */
  perTurn: Stats;
  /** Per later turn, wall time of `send` including the loopback provider call. */
  perTurnWall: Stats;
  liveMessages: number;
}

export interface HostSuiteOptions {
  sizes: number[];
  engines?: BundledEngine[];
  dir: string;
  contextLength?: number;
  turns?: number;
  server?: LoopbackChatServer;
  log?: (line: string) => void;
}

function makeEngine(kind: BundledEngine, dir: string, contextLength: number): ContextEngine {
  const chatModel = createInstantSummariser();
  if (kind === "compressor") return new ContextCompressor({ contextLength, model: "bench-model", chatModel });
  return new LcmEngine({ contextLength, model: "bench-model", chatModel, config: { database_path: join(dir, "lcm.db") } });
}

/** A host on the loopback server whose provider time is counted, so the host's own time can be told apart. */
function makeHost(engine: ContextEngine, server: LoopbackChatServer) {
  const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "bench-model", maxRetries: 0 });
  const clock = { providerMs: 0 };
  const chatModel = {
    model: model.model,
    complete: model.complete,
    async completeOnce(request: ChatModelRequest) {
      const t = performance.now();
      try {
        return await model.completeOnce(request);
      } finally {
        clock.providerMs += performance.now() - t;
      }
    },
  };
  return { host: new AgentHost({ engine, chatModel, config: { contextTimeoutSeconds: 600 } }), clock };
}

/** Time `turns` sends (after the first and two warm-up ones); every turn must complete and leave a valid list. */
async function timeTurns(session: Session, clock: { providerMs: number }, label: string, contextLength: number, turns: number) {
  let i = 0;
  const added: Message[] = [];
  const send = async () => {
    clock.providerMs = 0;
    const t = performance.now();
    const result = await session.send(`Question ${i++}: what changed in src/api since the last release?`);
    const wall = performance.now() - t;
    if (result.status !== "completed") throw new Error(`${label}: turn ${result.status} (${result.exitReason})`);
    added.push(...result.newMessages);
    checkContext(label, session.messages, contextLength);
    return { wall, own: wall - clock.providerMs };
  };
  const first = await send();
  const walls: number[] = [];
  const perTurn = await timed(
    label,
    async () => {
      const r = await send();
      walls.push(r.wall);
      return { overriddenDuration: r.own };
    },
    { iterations: turns, warmup: 2 },
  );
  return { added, figures: { firstTurnMs: first.wall, perTurn, perTurnWall: summarise(walls.slice(-perTurn.n)) } };
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
    for (const kind of options.engines ?? ["compressor", "lcm"]) {
      for (const size of options.sizes) {
        const dir = join(options.dir, `host-${kind}-${size}`);
        mkdirSync(dir, { recursive: true });
        const engine = makeEngine(kind, dir, contextLength);
        const { host, clock } = makeHost(engine, server);
        const history = new ConversationGenerator().until(size);
        try {
          const session = await host.openSession({ sessionId: `host-${kind}-${size}`, model: "bench-model", contextLength, dataDir: dir, systemPrompt: SYSTEM_PROMPT, history });
          const t = await timeTurns(session, clock, `host ${kind} imported ${size}`, contextLength, options.turns ?? 20);
          results.push({ engine: kind, mode: "imported", history: size, ...t.figures, liveMessages: session.messages.length });
        } finally {
          await host.close();
          (engine as { close?: () => void }).close?.();
        }
        const r = results[results.length - 1]!;
        log(`host: ${kind} imported ${size}: first turn ${r.firstTurnMs.toFixed(0)} ms, then p50 ${r.perTurn.median.toFixed(2)} ms / p95 ${r.perTurn.p95.toFixed(2)} ms`);
      }
    }
  } finally {
    if (!options.server) await server.stop();
  }
  return results;
}

export const SYSTEM_PROMPT = "You are a careful coding agent working in a TypeScript monorepo.";

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
): Promise<{ result: HostResult; live: Message[]; addedMessages: Message[] }> {
  const { host, clock } = makeHost(engine, server);
  const history = live.filter((m, i) => !(i === 0 && m.role === "system"));
  const session = await host.openSession({ sessionId, model: "bench-model", contextLength, systemPrompt: SYSTEM_PROMPT, history });
  const t = await timeTurns(session, clock, `host lcm resumed ${historyMessages}`, contextLength, turns);
  // The host is left open: closing it would end the engine's session, which the engine suite continues.
  return {
    result: { engine: "lcm", mode: "resumed", history: historyMessages, ...t.figures, liveMessages: session.messages.length },
    live: [...session.messages],
    addedMessages: t.added,
  };
}
