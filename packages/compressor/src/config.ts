import { z } from "zod";

/**
 * The `compression` block of config.yaml, snake_case as users write it.
 * Every key is optional; the defaults below are the documented behaviour.
 */
export const CompressionConfigSchema = z
  .object({
    /** Automatic compaction on/off. Manual or host-requested `compress()` calls still work when off. */
    enabled: z.boolean().default(true),
    /** Fraction of the context window at which compaction triggers. */
    threshold: z.number().gt(0).max(1).default(0.75),
    /** Non-system messages at the start kept verbatim until the first compaction. */
    protect_first_n: z.number().int().min(0).default(3),
    /** Minimum number of recent messages kept verbatim (the tail is otherwise chosen by token budget). */
    protect_last_n: z.number().int().min(1).default(6),
    /** Summary length relative to the text it replaces (bounded by the window, see README). */
    summary_target_ratio: z.number().min(0.05).max(0.8).default(0.2),
    /** Per-model threshold overrides: longest substring of the model name wins; `provider:substring` keys are provider-scoped. */
    model_thresholds: z.record(z.string(), z.number().gt(0).max(1)).default({}),
    /** Model name to ask the chat model for summaries; unset = the chat model's default. */
    summary_model: z.string().trim().min(1).nullable().optional(),
    /** Host-side timeout for one compaction pass, in seconds; 0 disables it. */
    context_timeout_seconds: z.number().min(0).default(120),
    /** Absolute cap on the trigger in tokens (the lower of this and threshold × window wins). */
    threshold_tokens: z.number().int().positive().nullable().optional(),
    /** Token budget for the verbatim recent tail; unset = derived from the window. */
    tail_token_budget: z.number().int().positive().nullable().optional(),
    /** Token counting: `estimate` (fast heuristic, default) or an exact tiktoken encoding, loaded on first use. */
    token_counter: z.enum(["estimate", "o200k_base", "cl100k_base"]).default("estimate"),
    /** When a summary attempt fails with a non-terminal error: true leaves the transcript unchanged instead of inserting the deterministic summary. */
    abort_on_summary_failure: z.boolean().default(false),
    /** `pruneToolResultsOnly` acts only when the prompt is at least this fraction of the trigger (0 = whenever called). */
    prune_trigger_percent: z.number().min(0).max(1).default(0.5),
    /** Old tool results at least this long (characters) are trimmed by `pruneToolResultsOnly`. */
    prune_min_result_chars: z.number().int().min(200).default(4000),
    /** `pruneToolResultsOnly` leaves the list alone unless it reclaims at least this many tokens (keeps the prompt cache stable). */
    prune_min_reclaim_tokens: z.number().int().min(0).default(1024),
  });

export type CompressionConfig = z.infer<typeof CompressionConfigSchema>;
/** What users may write (every key optional). */
export type CompressionConfigInput = z.input<typeof CompressionConfigSchema>;

/** Thrown when the `compression` block is invalid; names every bad field. */
export class CompressionConfigError extends Error {
  override readonly name = "CompressionConfigError";
  readonly issues: readonly string[];
  constructor(issues: string[], source: string) {
    super(`invalid ${source}:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
    this.issues = issues;
  }
}

/** Keys of a raw block that the schema does not know (likely typos); reported as warnings, not errors. */
export function unknownCompressionKeys(raw: unknown): string[] {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  const known = new Set(Object.keys(CompressionConfigSchema.shape));
  return Object.keys(raw).filter((k) => !known.has(k));
}

/**
 * Validate a raw `compression` block. `source` names where it came from
 * (e.g. `config.yaml compression`) for the error message.
 */
export function parseCompressionConfig(raw: unknown, source = "compression config"): CompressionConfig {
  const parsed = CompressionConfigSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const path = issue.path.length ? `compression.${issue.path.join(".")}` : "compression";
    return `${path}: ${issue.message}`;
  });
  throw new CompressionConfigError(issues, source);
}
