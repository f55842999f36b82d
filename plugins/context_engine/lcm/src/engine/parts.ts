import type { Logger } from "@context-engine/core";
import type { RowCache } from "../assembly/assembler.js";
import type { Summarizer } from "../compaction/summarizer.js";
import type { LcmConfig } from "../config.js";
import type { Budgets } from "./budgets.js";
import type { SessionRegistry } from "./sessions.js";
import type { ShapeBook } from "./shapes.js";
import type { StoreHandle } from "./store-handle.js";

/** Counters shown by `getStatus().lcm`. */
export interface EngineMetrics {
  ingested: number;
  published: number;
  stalePrepared: number;
  prepareRuns: number;
  compressCalls: number;
  selections: number;
  assemblies: number;
  /** Hook calls that failed open because the store failed (connection lost, I/O error). */
  storeFailures: number;
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
  isClosed(): boolean;
}

export function newMetrics(): EngineMetrics {
  return { ingested: 0, published: 0, stalePrepared: 0, prepareRuns: 0, compressCalls: 0, selections: 0, assemblies: 0, storeFailures: 0 };
}
