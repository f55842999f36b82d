import type { PlanOptions } from "../compaction/planner.js";
import type { LcmConfig } from "../config.js";

const DEFAULT_WINDOW = 128_000;

/** The figures budgets derive from: the engine's window and threshold as the host last set them. */
export interface WindowSource {
  contextLength: number;
  thresholdTokens: number;
  thresholdPercent: number;
  /** The window given at construction, used until the host calls `updateModel`. */
  initialContextLength: number | undefined;
}

/** Share of the host's input budget a request may take by our count (the host's counter may differ). */
const HOST_BUDGET_SHARE = 0.95;
/** Share of the window a request may take when the host does not say its budget. */
const WINDOW_SHARE = 0.92;

/** Token budgets of one engine, all derived from its window, threshold, config and the host's input budget. */
export class Budgets {
  /** The input budget the host last said it enforces (`budgetTokens`); 0 while unknown. */
  #hostInput = 0;

  constructor(
    private readonly source: WindowSource,
    private readonly config: LcmConfig,
  ) {}

  window(): number {
    const s = this.source;
    return s.contextLength > 0 ? s.contextLength : s.initialContextLength && s.initialContextLength > 0 ? s.initialContextLength : DEFAULT_WINDOW;
  }

  threshold(): number {
    const s = this.source;
    return s.thresholdTokens > 0 ? s.thresholdTokens : Math.floor(this.window() * s.thresholdPercent);
  }

  /**
   * Take the input budget a host passes with `selectContext` or `compress`: the window less its output
   * reserve and every tool schema it sends. A value not below the window is an older host's whole window
   * and says nothing more than the window does; 0 or absent leaves the last figure in place.
   */
  noteHostBudget(budgetTokens: number | undefined): void {
    if (typeof budgetTokens === "number" && budgetTokens > 0 && budgetTokens < this.window()) this.#hostInput = Math.floor(budgetTokens);
  }

  /** The input budget the host enforces, else the window. */
  input(): number {
    return this.#hostInput > 0 ? this.#hostInput : this.window();
  }

  /**
   * The most a request may take by our count: a share of the host's input budget when the host said it,
   * else a share of the window less the overhead we know of (our tool schemas, what real usage showed).
   */
  requestLimit(knownOverhead: number): number {
    if (this.#hostInput > 0) return Math.floor(this.#hostInput * HOST_BUDGET_SHARE);
    return Math.floor(this.window() * WINDOW_SHARE) - knownOverhead;
  }

  /** The most an assembled request may take: under the threshold and the host's input budget, so it does not re-trigger compaction at once. */
  assembly(): number {
    return Math.max(256, Math.floor(Math.min(this.threshold(), this.input()) * 0.9));
  }

  /** Where a compaction aims. */
  target(): number {
    return Math.max(128, Math.floor(this.threshold() * this.config.target_ratio));
  }

  /** The frontier size at which background preparation starts. */
  prepareAt(): number {
    return Math.floor(this.threshold() * this.config.prepare_ratio);
  }

  /** The frontier size at which background work publishes without waiting for a compress (the scheduled drain). */
  drainAt(): number {
    return this.threshold();
  }

  plan(pressure: boolean): PlanOptions {
    const target = this.target();
    const c = this.config;
    return {
      freshTailCount: c.fresh_tail_count,
      freshTailMaxTokens: c.fresh_tail_max_tokens ?? Math.max(256, Math.floor(target * 0.4)),
      leafChunkTokens: Math.max(256, Math.min(c.leaf_chunk_tokens, Math.floor(this.threshold() / 4))),
      leafMinMessages: c.leaf_min_messages,
      fanout: c.condensed_fanout,
      maxDepth: c.max_depth,
      summaryBudget: Math.max(256, Math.floor(target * 0.5)),
      pressure,
    };
  }

  /** Messages above this size are shown shortened (on a small window one message may not take most of the request). */
  largeMessage(budget: number): number {
    return Math.max(256, Math.min(this.config.large_message_tokens, Math.floor(budget / 3)));
  }
}
