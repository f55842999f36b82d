import { z } from "zod";
import type { PromptCacheMode } from "./request/cache-breakpoints.js";

/** How the host treats a committed compaction towards the engine's session hooks. */
export type CompactionBoundaryMode =
  /** `onSessionStart(id, { boundaryReason: "compression", oldSessionId: id })` after each commit (default). */
  | "notify"
  /** Upstream's full sequence: `onSessionEnd(id, pre)` → commit → `onSessionStart(id, { boundaryReason })`. */
  | "end-and-start"
  /** No session hooks around compaction. */
  | "none";

const Ms = z.number().finite().nonnegative();

/**
 * Bounds, in ms, for each engine call the host awaits (0: no bound). Past
 * its bound a call fails open like a throw (`hook.failed`, reason
 * `timeout`) and the session moves on. `compress` keeps its own bound,
 * `contextTimeoutSeconds`.
 *
 * The defaults come from `bench/hook-costs.ts` (the compressor and LCM on
 * SQLite through this host, a 120-turn LoCoMo replay): the slowest call
 * measured was ~120 ms (LCM's `onSessionStart`, opening its store), a
 * `selectContext` ~30 ms, an `onTurnComplete` ~50 ms, an engine tool ~110
 * ms. Each bound leaves well over 10x that, and a hung engine costs a turn
 * a few seconds, not minutes.
 */
export const HookTimeoutsSchema = z.strictObject({
  selectContext: Ms.default(3_000),
  onTurnComplete: Ms.default(5_000),
  handleToolCall: Ms.default(15_000),
  onSessionStart: Ms.default(5_000),
  onSessionEnd: Ms.default(5_000),
  onSessionReset: Ms.default(3_000),
  updateModel: Ms.default(2_000),
  shouldCompressPreflight: Ms.default(3_000),
  pruneToolResultsOnly: Ms.default(3_000),
});

export type HookTimeouts = z.output<typeof HookTimeoutsSchema>;

/**
 * Per-session breaker for hooks that time out (see session/hook-breaker.ts). Within a turn a hook
 * that timed out is never awaited again; across turns, `openAfter` consecutive timeouts skip the
 * hook for `retryAfterMs`, then one trial call decides.
 */
export const HookBreakerSchema = z.strictObject({
  openAfter: z.number().int().nonnegative().default(3),
  retryAfterMs: Ms.default(60_000),
});
export type BoundedHook = keyof HookTimeouts;

export const HostConfigSchema = z.strictObject({
  /** Per-hook bounds in ms (config.yaml `host.hook_timeouts.<hook>`). */
  hookTimeouts: HookTimeoutsSchema.prefault({}),
  /** config.yaml `host.hook_breaker.{open_after,retry_after_ms}`. */
  hookBreaker: HookBreakerSchema.prefault({}),
  /** `compression.context_timeout_seconds`: host timeout for one compression pass; 0 disables. */
  contextTimeoutSeconds: z.number().finite().nonnegative().default(120),
  /**
   * Tokens kept free for the model's answer (`host.output_reserve_tokens`; 0: none, the provider's
   * default). A request may take the window minus this; it is sent as the request's `max_tokens`.
   * Capped at half the window.
   */
  outputReserveTokens: z.number().int().nonnegative().default(0),
  /** Provider requests allowed in one turn (tool loop steps, retries excluded). */
  maxIterations: z.number().int().positive().default(50),
  /** Automatic compaction passes allowed in one turn, shared by every gate. */
  maxCompressionAttempts: z.number().int().nonnegative().default(3),
  /** Prompt-cache breakpoints: `auto` adds them for Claude-family models only. */
  promptCache: z.enum(["auto", "on", "off"]).default("auto"),
  /** Host-side retries of a provider request (re-assembled, selection re-run) on 429/5xx/network. */
  maxRetries: z.number().int().nonnegative().default(2),
  retryBaseDelayMs: z.number().finite().nonnegative().default(1000),
  retryMaxDelayMs: z.number().finite().nonnegative().default(30_000),
  /** `compression.model_thresholds`, assigned to the engine before the first `updateModel`. */
  modelThresholds: z.record(z.string(), z.number().finite()).optional(),
  compactionBoundary: z.enum(["notify", "end-and-start", "none"]).default("notify"),
  /** Pins (`session.pin`): the pins block may take at most this share of the context window (`host.pins.max_share`). */
  pins: z.strictObject({ maxShare: z.number().finite().gt(0).max(1).default(0.1) }).prefault({}),
  /** End sessions idle this long (onSessionEnd with reason `expired`); 0 never. */
  sessionIdleTimeoutSeconds: z.number().finite().nonnegative().default(0),
});

export type HostConfigInput = z.input<typeof HostConfigSchema>;
export type HostConfig = z.output<typeof HostConfigSchema> & { promptCache: PromptCacheMode; compactionBoundary: CompactionBoundaryMode };

/** Validate host options; errors name the field and what was expected. */
export function resolveHostConfig(input: HostConfigInput | undefined, source = "host config"): HostConfig {
  const parsed = HostConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new TypeError(`${source}: invalid options\n${lines.join("\n")}`);
  }
  return parsed.data as HostConfig;
}

const ConfigFileSlice = z.looseObject({
  compression: z
    .looseObject({
      context_timeout_seconds: z.number().finite().nonnegative().optional(),
      model_thresholds: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
    })
    .optional()
    .nullable(),
  host: z
    .looseObject({
      max_iterations: z.number().int().positive().optional(),
      max_compression_attempts: z.number().int().nonnegative().optional(),
      prompt_cache: z.enum(["auto", "on", "off"]).optional(),
      max_retries: z.number().int().nonnegative().optional(),
      output_reserve_tokens: z.number().int().nonnegative().optional(),
      session_idle_timeout_seconds: z.number().finite().nonnegative().optional(),
      pins: z.strictObject({ max_share: z.number().finite().gt(0).max(1).optional() }).optional().nullable(),
      hook_timeouts: z
        .strictObject({
          select_context: Ms.optional(),
          on_turn_complete: Ms.optional(),
          handle_tool_call: Ms.optional(),
          on_session_start: Ms.optional(),
          on_session_end: Ms.optional(),
          on_session_reset: Ms.optional(),
          update_model: Ms.optional(),
          should_compress_preflight: Ms.optional(),
          prune_tool_results_only: Ms.optional(),
        })
        .optional()
        .nullable(),
      hook_breaker: z
        .strictObject({ open_after: z.number().int().nonnegative().optional(), retry_after_ms: Ms.optional() })
        .optional()
        .nullable(),
    })
    .optional()
    .nullable(),
});

/**
 * Host options from a parsed config.yaml object (snake_case): the
 * `compression.context_timeout_seconds` and `compression.model_thresholds`
 * keys, plus an optional `host:` block.
 */
export function hostConfigFromFile(config: unknown, source = "config.yaml"): HostConfigInput {
  const parsed = ConfigFileSlice.safeParse(config ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join(".")}: ${i.message}`);
    throw new TypeError(`${source}: invalid host settings\n${lines.join("\n")}`);
  }
  const c = parsed.data.compression ?? {};
  const h = parsed.data.host ?? {};
  const out: HostConfigInput = {};
  if (c.context_timeout_seconds !== undefined) out.contextTimeoutSeconds = c.context_timeout_seconds;
  if (c.model_thresholds) {
    const thresholds: Record<string, number> = {};
    for (const [k, v] of Object.entries(c.model_thresholds)) {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new TypeError(`${source}: compression.model_thresholds.${k}: expected a number, got ${JSON.stringify(v)}`);
      thresholds[k] = n;
    }
    out.modelThresholds = thresholds;
  }
  if (h.max_iterations !== undefined) out.maxIterations = h.max_iterations;
  if (h.max_compression_attempts !== undefined) out.maxCompressionAttempts = h.max_compression_attempts;
  if (h.prompt_cache !== undefined) out.promptCache = h.prompt_cache;
  if (h.max_retries !== undefined) out.maxRetries = h.max_retries;
  if (h.output_reserve_tokens !== undefined) out.outputReserveTokens = h.output_reserve_tokens;
  if (h.session_idle_timeout_seconds !== undefined) out.sessionIdleTimeoutSeconds = h.session_idle_timeout_seconds;
  if (h.pins?.max_share !== undefined) out.pins = { maxShare: h.pins.max_share };
  if (h.hook_timeouts) {
    const timeouts: Partial<HookTimeouts> = {};
    for (const [key, value] of Object.entries(h.hook_timeouts)) {
      if (typeof value === "number") timeouts[camel(key) as BoundedHook] = value;
    }
    out.hookTimeouts = timeouts;
  }
  if (h.hook_breaker) {
    out.hookBreaker = {};
    if (h.hook_breaker.open_after !== undefined) out.hookBreaker.openAfter = h.hook_breaker.open_after;
    if (h.hook_breaker.retry_after_ms !== undefined) out.hookBreaker.retryAfterMs = h.hook_breaker.retry_after_ms;
  }
  return out;
}

function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}
