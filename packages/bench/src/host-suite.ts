import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { ChatModelRequest, ContextEngine } from "@context-engine/core";
import { AgentHost, createOpenAIChatModel } from "@context-engine/host";
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
  /** Messages of history the session was opened with. */
  history: number;
  /** The first send: the engine takes in the whole history (first compaction). */
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
  log?: (line: string) => void;
}

function makeEngine(kind: BundledEngine, dir: string, contextLength: number): ContextEngine {
  const chatModel = createInstantSummariser();
  if (kind === "compressor") return new ContextCompressor({ contextLength, model: "bench-model", chatModel });
  return new LcmEngine({ contextLength, model: "bench-model", chatModel, config: { database_path: join(dir, "lcm.db") } });
}

/**
 * The host's per-turn cost with each bundled engine: the real AgentHost,
 * the real OpenAI client against a loopback server, a session opened with
 * `history` messages of the same conversation. The first send (where the
 * engine takes in the history) is reported apart; later turns are timed with
 * tinybench, the provider call subtracted.
 */
export async function runHostSuite(options: HostSuiteOptions): Promise<HostResult[]> {
  const log = options.log ?? (() => {});
  const contextLength = options.contextLength ?? 128_000;
  const server = await new LoopbackChatServer().start();
  const results: HostResult[] = [];
  try {
    for (const kind of options.engines ?? ["compressor", "lcm"]) {
      for (const size of options.sizes) {
        const dir = join(options.dir, `host-${kind}-${size}`);
        mkdirSync(dir, { recursive: true });
        results.push(await runOne(kind, size, dir, contextLength, options.turns ?? 20, server));
        const r = results[results.length - 1]!;
        log(`host: ${kind} at ${size}: first turn ${r.firstTurnMs.toFixed(0)} ms, then p50 ${r.perTurn.median.toFixed(2)} ms / p95 ${r.perTurn.p95.toFixed(2)} ms`);
      }
    }
  } finally {
    await server.stop();
  }
  return results;
}

async function runOne(kind: BundledEngine, size: number, dir: string, contextLength: number, turns: number, server: LoopbackChatServer): Promise<HostResult> {
  const engine = makeEngine(kind, dir, contextLength);
  const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "bench-model", maxRetries: 0 });
  let providerMs = 0;
  const timedModel = {
    model: model.model,
    complete: model.complete,
    async completeOnce(request: ChatModelRequest) {
      const t = performance.now();
      try {
        return await model.completeOnce(request);
      } finally {
        providerMs += performance.now() - t;
      }
    },
  };
  const host = new AgentHost({ engine, chatModel: timedModel, config: { contextTimeoutSeconds: 600 } });
  const history = new ConversationGenerator().until(size);
  const session = await host.openSession({ sessionId: `host-${kind}-${size}`, model: "bench-model", contextLength, dataDir: dir, systemPrompt: "You are a careful coding agent.", history });
  try {
    let i = 0;
    const send = async () => {
      providerMs = 0;
      const t = performance.now();
      const result = await session.send(`Question ${i++}: what changed in src/api since the last release?`);
      const wall = performance.now() - t;
      if (result.status !== "completed") throw new Error(`host ${kind} at ${size}: turn ${result.status} (${result.exitReason})`);
      // Every turn leaves a valid conversation within the window.
      checkContext(`host ${kind} at ${size}`, session.messages, contextLength);
      return { wall, own: wall - providerMs };
    };
    const first = await send();
    const walls: number[] = [];
    const perTurn = await timed(
      `host ${kind} ${size}`,
      async () => {
        const r = await send();
        walls.push(r.wall);
        return { overriddenDuration: r.own };
      },
      { iterations: turns, warmup: 2 },
    );
    return { engine: kind, history: size, firstTurnMs: first.wall, perTurn, perTurnWall: summarise(walls.slice(-perTurn.n)), liveMessages: session.messages.length };
  } finally {
    await host.close();
    (engine as { close?: () => void }).close?.();
  }
}
