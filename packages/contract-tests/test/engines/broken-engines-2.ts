// More deliberately broken engines: each breaks one rule the first list did not reach.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  contentText,
  resolveModelThreshold,
  toolError,
  type CompressDecision,
  type CompressOptions,
  type ContextEngine,
  type EngineInitContext,
  type EngineStatus,
  type Message,
  type PruneResult,
  type ToolCallOptions,
  type ToolSchema,
  type Usage,
  type UpdateModelOptions,
} from "@context-engine/core";
import type { BrokenEngine } from "./broken-engines.js";
import { MinimalEngine, ReferenceEngine } from "./reference-engine.js";

/** Resolves modelThresholds with a custom rule (the engine reacts to the map, so it must resolve it right). */
abstract class CustomResolution extends ReferenceEngine {
  #configured: number | undefined;
  protected abstract resolve(model: string, provider: string | undefined, fallback: number): number;
  override updateModel(model: string, contextLength: number, options: UpdateModelOptions = {}): void {
    this.#configured ??= this.thresholdPercent;
    this.contextLength = contextLength;
    this.thresholdPercent = this.resolve(model, options.provider, this.#configured);
    this.thresholdTokens = Math.floor(contextLength * this.thresholdPercent);
  }
}

class FirstMatchThresholds extends CustomResolution {
  protected resolve(model: string, _provider: string | undefined, fallback: number): number {
    for (const [key, value] of Object.entries(this.modelThresholds)) if (model.includes(key.split(":").pop()!)) return value;
    return fallback;
  }
}

class ProviderScopeIgnored extends CustomResolution {
  protected resolve(model: string, _provider: string | undefined, fallback: number): number {
    const bare = Object.fromEntries(Object.entries(this.modelThresholds).map(([k, v]) => [k.split(":").pop()!, v]));
    return resolveModelThreshold(model, bare, fallback);
  }
}

class StickyOverride extends ReferenceEngine {
  override updateModel(model: string, contextLength: number, options: UpdateModelOptions = {}): void {
    // Falls back to the current (possibly overridden) percent instead of the configured one.
    this.contextLength = contextLength;
    this.thresholdPercent = resolveModelThreshold(model, this.modelThresholds, this.thresholdPercent, options.provider);
    this.thresholdTokens = Math.floor(contextLength * this.thresholdPercent);
  }
}

class EagerBeforeUpdateModel extends MinimalEngine {
  override get name() {
    return "reference";
  }
  override shouldCompress(promptTokens?: number): boolean {
    return (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens; // threshold 0 → always
  }
}

class SentinelCompresses extends ReferenceEngine {
  override shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? (this.lastPromptTokens < 0 ? this.lastTotalTokens : this.lastPromptTokens);
    return this.thresholdTokens > 0 && tokens >= this.thresholdTokens;
  }
}

class InfoDisagrees extends ReferenceEngine {
  override shouldCompressInfo(): CompressDecision {
    return { compress: true, reason: null };
  }
}

class ThresholdOverWindow extends ReferenceEngine {
  override updateModel(model: string, contextLength: number, options?: UpdateModelOptions): void {
    super.updateModel(model, contextLength, options);
    this.thresholdTokens = Math.floor(contextLength * 1.2);
  }
}

class FractionPercent extends ReferenceEngine {
  override getStatus(): EngineStatus {
    const status = super.getStatus();
    return { ...status, usagePercent: status.usagePercent / 100 };
  }
}

class StaleStatus extends ReferenceEngine {
  #cached: EngineStatus | undefined;
  override getStatus(): EngineStatus {
    this.#cached ??= super.getStatus();
    return this.#cached;
  }
}

class PrefersInputTokens extends ReferenceEngine {
  override updateFromResponse(usage: Usage): void {
    super.updateFromResponse(usage);
    if (typeof usage.input_tokens === "number") this.lastPromptTokens = usage.input_tokens;
  }
}

class SumsCacheBuckets extends ReferenceEngine {
  override updateFromResponse(usage: Usage): void {
    super.updateFromResponse(usage);
    this.lastPromptTokens = usage.prompt_tokens + (usage.cache_read_tokens ?? 0) + (usage.cache_write_tokens ?? 0);
  }
}

class RecomputesTotal extends ReferenceEngine {
  override updateFromResponse(usage: Usage): void {
    super.updateFromResponse(usage);
    this.lastTotalTokens = this.lastPromptTokens + this.lastCompletionTokens;
  }
}

class ResetForgetsModel extends ReferenceEngine {
  override onSessionReset(): void {
    super.onSessionReset();
    this.thresholdTokens = 0;
    this.contextLength = 0;
  }
}

class CountsByTwo extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const before = this.compressionCount;
    const out = await super.compress(messages, options);
    if (this.compressionCount > before) this.compressionCount++;
    return out;
  }
}

class CountsNoop extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const before = this.compressionCount;
    const out = await super.compress(messages, options);
    this.compressionCount = before + 1; // counts every call, compacted or not
    return out;
  }
}

class SummaryAsSystem extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    return out.map((m) => (m.role === "user" && contentText(m.content).startsWith("[Summary of") ? ({ role: "system", content: m.content } as Message) : m));
  }
}

/** A cooldown after each compaction; this one also refuses a forced pass. */
export class CooldownEngine extends ReferenceEngine {
  protected lastCompactionAt = 0;
  protected honoursForce = true;
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const cooling = Date.now() - this.lastCompactionAt < 60_000;
    if (cooling && !(this.honoursForce && options.force)) return messages;
    const before = this.compressionCount;
    const out = await super.compress(messages, options);
    if (this.compressionCount > before) this.lastCompactionAt = Date.now();
    return out;
  }
}

class IgnoresForce extends CooldownEngine {
  protected override honoursForce = false;
}

/** Ignores the host's abort: when the late summary arrives it is written to dataDir anyway. */
class PublishesAfterAbort extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const { signal: _ignored, ...rest } = options;
    const out = await super.compress(messages, rest);
    const summary = out.find((m) => contentText(m.content).startsWith("[Summary of"));
    if (summary && this.dataDir) writeFileSync(join(this.dataDir, "summary.json"), JSON.stringify(contentText(summary.content)));
    return out;
  }
}

/** Keeps the previous summary in module state shared by every instance. */
let sharedPrevious = "";
class StaticSummaryLeak extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    const previous = sharedPrevious;
    sharedPrevious = messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n").slice(-400);
    if (!previous || out === messages) return out;
    return out.map((m) => (contentText(m.content).startsWith("[Summary of") ? ({ ...m, content: `${contentText(m.content)}\nEarlier: ${previous}` } as Message) : m));
  }
}

/** Keeps the previous summary per instance and never clears it between sessions. */
class InstanceSummaryLeak extends ReferenceEngine {
  #previous = "";
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    const previous = this.#previous;
    this.#previous = messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n").slice(-400);
    if (!previous || out === messages) return out;
    return out.map((m) => (contentText(m.content).startsWith("[Summary of") ? ({ ...m, content: `${contentText(m.content)}\nEarlier: ${previous}` } as Message) : m));
  }
}

class BadSchemaType extends ReferenceEngine {
  override getToolSchemas(): ToolSchema[] {
    const [search, stats] = super.getToolSchemas();
    return [{ ...search!, parameters: { type: "object", properties: { query: { type: "str" }, limit: { type: "integer" } }, required: ["query"] } }, stats!];
  }
}

class RequiredNotInProperties extends ReferenceEngine {
  override getToolSchemas(): ToolSchema[] {
    const [search, stats] = super.getToolSchemas();
    return [{ ...search!, parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query", "q"] } }, stats!];
  }
}

class SchemaHandlerMismatch extends ReferenceEngine {
  override getToolSchemas(): ToolSchema[] {
    return super.getToolSchemas().map((s) => (s.name === "reference_stats" ? { ...s, name: "reference_count" } : s));
  }
}

class RejectsStringArgs extends ReferenceEngine {
  override handleToolCall(name: string, args: unknown, options?: ToolCallOptions): string {
    if (typeof args === "string") return toolError(`${name}: arguments must be an object`);
    return super.handleToolCall(name, args, options);
  }
}

class UnknownToolPlainText extends ReferenceEngine {
  override handleToolCall(name: string, args: unknown, options?: ToolCallOptions): string {
    if (!super.getToolSchemas().some((s) => s.name === name)) return `Unknown tool ${name}`;
    return super.handleToolCall(name, args, options);
  }
}

class UndeclaredTools extends MinimalEngine {
  static readonly capabilities = { tools: false };
  override get name() {
    return "reference";
  }
  override getToolSchemas(): ToolSchema[] {
    return [{ name: "minimal_probe", description: "x", parameters: { type: "object", properties: {} } }];
  }
}

class PreflightMutates extends ReferenceEngine {
  override shouldCompressPreflight(messages: readonly Message[]): boolean {
    (messages as Message[]).splice(1, 1);
    return false;
  }
}

class PreflightNumber extends ReferenceEngine {
  override shouldCompressPreflight(messages: readonly Message[]): boolean {
    return messages.length as unknown as boolean;
  }
}

class PruneUnderReports extends ReferenceEngine {
  override pruneToolResultsOnly(messages: Message[]): PruneResult {
    return { messages: messages.map((m) => (m.role === "tool" ? ({ ...m, content: "[pruned]" } as Message) : m)), pruned: 0 };
  }
}

class PruneBreaksPairs extends ReferenceEngine {
  override pruneToolResultsOnly(messages: Message[]): PruneResult {
    const out = messages.filter((m) => m.role !== "tool");
    return { messages: out, pruned: messages.length - out.length };
  }
}

class HasContentNumber extends ReferenceEngine {
  override hasContentToCompress(messages: readonly Message[]): boolean {
    return messages.length as unknown as boolean;
  }
}

class ClaimsSynchronous extends ReferenceEngine {
  static override readonly capabilities = { ...ReferenceEngine.capabilities, synchronous: true };
}

const ref = (E: new (ctx: EngineInitContext) => ContextEngine) => (ctx: EngineInitContext) => new E(ctx);
const T = "threshold > ";
const S = "reset and status > ";
const C = "compress > ";
const TOOLS = "tools > ";

export const MORE_BROKEN_ENGINES: BrokenEngine[] = [
  { defect: "first-match-thresholds", aimedAt: `${T}modelThresholds: the longest matching key wins, not the first`, create: ref(FirstMatchThresholds) },
  { defect: "provider-scope-ignored", aimedAt: `${T}modelThresholds: provider-scoped keys apply only to their provider`, create: ref(ProviderScopeIgnored) },
  { defect: "sticky-override", aimedAt: `${T}modelThresholds: a model switch re-resolves from the configured threshold`, create: ref(StickyOverride) },
  { defect: "eager-before-update-model", aimedAt: `${T}shouldCompress is false before updateModel has run`, create: ref(EagerBeforeUpdateModel) },
  { defect: "sentinel-compresses", aimedAt: `${T}shouldCompress waits for real usage after a committed compaction (lastPromptTokens -1)`, create: ref(SentinelCompresses) },
  { defect: "info-disagrees", aimedAt: `${T}shouldCompressInfo agrees with shouldCompress`, create: ref(InfoDisagrees) },
  { defect: "threshold-over-window", aimedAt: `${T}shouldCompress is false below thresholdTokens and true at or above it`, create: ref(ThresholdOverWindow) },
  { defect: "fraction-percent", aimedAt: `${S}getStatus().usagePercent is a percent (0-100) of the context window, not a fraction`, create: ref(FractionPercent) },
  { defect: "stale-status", aimedAt: `${S}getStatus reflects the current figures, never stale ones`, create: ref(StaleStatus) },
  { defect: "prefers-input-tokens", aimedAt: `${S}updateFromResponse reads prompt_tokens (the whole prompt), not input_tokens or a sum with the cache buckets`, create: ref(PrefersInputTokens) },
  { defect: "sums-cache-buckets", aimedAt: `${S}updateFromResponse reads prompt_tokens (the whole prompt), not input_tokens or a sum with the cache buckets`, create: ref(SumsCacheBuckets) },
  { defect: "recomputes-total", aimedAt: `${S}updateFromResponse reads prompt_tokens (the whole prompt), not input_tokens or a sum with the cache buckets`, create: ref(RecomputesTotal) },
  { defect: "reset-forgets-model", aimedAt: `${S}onSessionReset clears what the previous conversation left (the next status starts from zero)`, create: ref(ResetForgetsModel) },
  { defect: "counts-by-two", aimedAt: `${C}raises compressionCount by exactly one per compaction`, create: ref(CountsByTwo) },
  { defect: "counts-noop", aimedAt: `${C}raises compressionCount by exactly one per compaction`, create: ref(CountsNoop) },
  { defect: "summary-as-system", aimedAt: `${C}keeps system messages only at the start (no summary as a system message mid-conversation)`, create: ref(SummaryAsSystem) },
  { defect: "ignores-force", aimedAt: `${C}force: a manual compress right after a compaction still compacts`, create: ref(IgnoresForce) },
  { defect: "publishes-after-abort", aimedAt: `${C}an aborted pass publishes nothing durable, even when its model answers late`, create: ref(PublishesAfterAbort) },
  { defect: "claims-synchronous", aimedAt: `${C}compress returns its list directly when the engine declares itself synchronous`, create: ref(ClaimsSynchronous) },
  { defect: "preflight-mutates", aimedAt: `${C}shouldCompressPreflight answers a boolean and leaves its input alone`, create: ref(PreflightMutates) },
  { defect: "preflight-number", aimedAt: `${C}shouldCompressPreflight answers a boolean and leaves its input alone`, create: ref(PreflightNumber) },
  { defect: "prune-under-reports", aimedAt: `${C}pruneToolResultsOnly returns a valid list and counts what it pruned`, create: ref(PruneUnderReports) },
  { defect: "prune-breaks-pairs", aimedAt: `${C}pruneToolResultsOnly returns a valid list and counts what it pruned`, create: ref(PruneBreaksPairs) },
  { defect: "has-content-number", aimedAt: `${C}pruneToolResultsOnly returns a valid list and counts what it pruned`, create: ref(HasContentNumber) },
  { defect: "static-summary-leak", aimedAt: "concurrency > a new instance never sees another instance's summary", create: ref(StaticSummaryLeak) },
  { defect: "instance-summary-leak", aimedAt: "concurrency > a new session on the same instance never sees the previous session's summary", create: ref(InstanceSummaryLeak) },
  { defect: "bad-schema-type", aimedAt: `${TOOLS}tool parameters are valid JSON Schema`, create: ref(BadSchemaType) },
  { defect: "required-not-in-properties", aimedAt: `${TOOLS}tool parameters are valid JSON Schema`, create: ref(RequiredNotInProperties) },
  { defect: "schema-handler-mismatch", aimedAt: `${TOOLS}handleToolCall answers every name getToolSchemas declares (schema and handler names match)`, create: ref(SchemaHandlerMismatch) },
  { defect: "rejects-string-args", aimedAt: `${TOOLS}handleToolCall gives the same answer for JSON-string and object arguments`, create: ref(RejectsStringArgs) },
  { defect: "unknown-tool-plain-text", aimedAt: `${TOOLS}handleToolCall returns a JSON error for an unknown tool`, create: ref(UnknownToolPlainText) },
  { defect: "undeclared-tools", aimedAt: `${TOOLS}without tools, getToolSchemas is empty`, create: ref(UndeclaredTools) },
];
