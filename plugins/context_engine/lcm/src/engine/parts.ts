import type { ImportDrain } from "./import-drain.js";
import type { ContextEngine, EngineInitContext, Logger } from "@context-engine/core";
import type { RowCache } from "../assembly/assembler.js";
import { Summarizer } from "../compaction/summarizer.js";
import type { LcmConfig } from "../config.js";
import type { Budgets, WindowSource } from "./budgets.js";
import type { BacklogDrain } from "./drain.js";
import type { IndexDrain } from "./index-drain.js";
import type { SessionRegistry } from "./sessions.js";
import type { ShapeBook } from "./shapes.js";
import type { Embeddings } from "../embeddings/embedder.js";
import type { StoreHandle } from "./store-handle.js";
import type { WorkClock } from "./work-clock.js";

/** Counters shown by `getStatus().lcm`. */
export interface EngineMetrics {
  ingested: number;
  /** Ingests that compared a whole list with the stored history (no writer position held). */
  reconciled: number;
  published: number;
  stalePrepared: number;
  prepareRuns: number;
  compressCalls: number;
  selections: number;
  assemblies: number;
  /** Hook calls that failed open because the store failed (connection lost, I/O error). */
  storeFailures: number;
  /** Scheduled drains started (a frontier over the threshold with no compress needed), and their runs. */
  drains: number;
  drainRuns: number;
  /** Drain runs skipped because another process held the conversation's drain claim. */
  drainClaimWaits: number;
}

/** What the engine's parts (turn path, preparation, compress, selection) share: one per engine instance. */
export interface EngineParts {
  readonly config: LcmConfig;
  readonly logger: Logger;
  readonly summarizer: Summarizer;
  readonly cache: RowCache;
  readonly shapes: ShapeBook;
  readonly sessions: SessionRegistry;
  readonly handle: StoreHandle;
  readonly budgets: Budgets;
  readonly metrics: EngineMetrics;
  /** A bulk import's full-text backlog, indexed off the hook path. */
  readonly indexing: IndexDrain;
  /** Backlogs over the threshold, summarised and published off the hook path. */
  readonly drain: BacklogDrain;
  /** Long histories' backlogs, stored after their tails (engine/import-drain.ts). */
  readonly imports: ImportDrain;
  /** Hooks in flight and the CPU time of background work: background slices wait for the hooks. */
  readonly clock: WorkClock;
  /** Hybrid retrieval's background embedding and query vectors; null without `embeddings` config. */
  readonly embeddings: Embeddings | null;
  isClosed(): boolean;
}

export function newMetrics(): EngineMetrics {
  return { ingested: 0, reconciled: 0, published: 0, stalePrepared: 0, prepareRuns: 0, compressCalls: 0, selections: 0, assemblies: 0, storeFailures: 0, drains: 0, drainRuns: 0, drainClaimWaits: 0 };
}

/** The summariser an engine's config and context describe. */
export function createSummarizer(config: LcmConfig, ctx: EngineInitContext, logger: Logger): Summarizer {
  return new Summarizer({
    ...(ctx.chatModel ? { chatModel: ctx.chatModel } : {}),
    ...(config.summary_model ? { model: config.summary_model } : {}),
    temperature: config.summary_temperature,
    timeoutMs: config.summary_timeout_ms,
    fallbackMaxTokens: config.fallback_max_tokens,
    customInstructions: config.custom_instructions,
    maxUnsupportedRatio: config.max_unsupported_ratio,
    breakerFailures: config.circuit_breaker_failures,
    breakerCooldownMs: config.circuit_breaker_cooldown_ms,
    logger,
  });
}

/** The engine's window and threshold, read live (the host changes them through `updateModel`). */
export function windowOf(engine: ContextEngine, initialContextLength: number | undefined): WindowSource {
  return {
    get contextLength() {
      return engine.contextLength;
    },
    get thresholdTokens() {
      return engine.thresholdTokens;
    },
    get thresholdPercent() {
      return engine.thresholdPercent;
    },
    initialContextLength,
  };
}
