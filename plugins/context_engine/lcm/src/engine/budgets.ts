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

/** Token budgets of one engine, all derived from its window, threshold and config. */
export class Budgets {
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

  /** The most an assembled request may take: under the threshold, so it does not re-trigger compaction at once. */
  assembly(): number {
    return Math.max(256, Math.floor(Math.min(this.threshold(), this.window()) * 0.9));
  }

  /** Where a compaction aims. */
  target(): number {
    return Math.max(128, Math.floor(this.threshold() * this.config.target_ratio));
  }

  /** The frontier size at which background preparation starts. */
  prepareAt(): number {
    return Math.floor(this.threshold() * this.config.prepare_ratio);
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
