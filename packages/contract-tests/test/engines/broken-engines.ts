import { writeFileSync } from "node:fs";
import {
  contentText,
  toolError,
  type CompressOptions,
  type ContextEngine,
  type EngineInitContext,
  type EngineStatus,
  type Message,
  type SelectContextOptions,
  type SessionStartOptions,
  type ToolCallOptions,
  type ToolSchema,
  type TurnCompleteMeta,
  type Usage,
  type UpdateModelOptions,
} from "@context-engine/core";
import { compactConversation } from "./compact.js";
import { MinimalEngine, ReferenceEngine } from "./reference-engine.js";

/** A deliberately broken engine and the one kit test (`<domain> > <title>`) that must catch it. */
export interface BrokenEngine {
  defect: string;
  aimedAt: string;
  create: (ctx: EngineInitContext) => ContextEngine;
}

class BadName extends ReferenceEngine {
  override get name() {
    return "Reference Engine";
  }
}

class NaNField extends ReferenceEngine {
  override summaryTargetRatio = Number.NaN;
}

class Accumulates extends ReferenceEngine {
  override updateFromResponse(usage: Usage): void {
    // Running sums instead of the last response's figures.
    const [p, c, t] = [this.lastPromptTokens, this.lastCompletionTokens, this.lastTotalTokens];
    super.updateFromResponse(usage);
    this.lastPromptTokens += p;
    this.lastCompletionTokens += c;
    this.lastTotalTokens += t;
  }
}

class StrictUsage extends ReferenceEngine {
  override updateFromResponse(usage: Usage): void {
    const allowed = new Set(["prompt_tokens", "completion_tokens", "total_tokens"]);
    for (const key of Object.keys(usage)) if (!allowed.has(key)) throw new Error(`unexpected usage key ${key}`);
    super.updateFromResponse(usage);
  }
}

class StrictlyAbove extends ReferenceEngine {
  override shouldCompress(promptTokens?: number): boolean {
    return (promptTokens ?? this.lastPromptTokens) > this.thresholdTokens;
  }
}

class FixedThreshold extends ReferenceEngine {
  // Claims to honour modelThresholds (not to own its policy), then ignores the map.
  static override readonly capabilities = { ...ReferenceEngine.capabilities, ownsThresholdPolicy: false };
  #first: number | undefined;
  override updateModel(_model: string, contextLength: number, _options?: UpdateModelOptions): void {
    // Ignores modelThresholds: always the configured percent.
    this.#first ??= this.thresholdPercent;
    this.contextLength = contextLength;
    this.thresholdTokens = Math.floor(contextLength * this.#first);
  }
}

class NoThresholdRecompute extends ReferenceEngine {
  #firstWindow: number | undefined;
  override updateModel(model: string, contextLength: number, options?: UpdateModelOptions): void {
    super.updateModel(model, contextLength, options);
    // The threshold keeps using the first window it saw.
    this.#firstWindow ??= contextLength;
    this.thresholdTokens = Math.floor(this.#firstWindow * this.thresholdPercent);
  }
}

class DropsToolResult extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    const i = out.findIndex((m) => m.role === "tool");
    return i < 0 ? out : [...out.slice(0, i), ...out.slice(i + 1)];
  }
}

class DropsSystemPrompt extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    return out === messages ? out : out.filter((m) => m.role !== "system");
  }
}

class DropsLatestUser extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    if (out === messages) return out;
    let i = out.length - 1;
    while (i >= 0 && out[i]!.role !== "user") i--;
    return i < 0 ? out : [...out.slice(0, i), ...out.slice(i + 1)];
  }
}

class GrowsWhenFits extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    if (out !== messages) return out;
    const last = messages[messages.length - 1];
    // Appends a status note even when there was nothing to do (kept valid: not after an in-flight call).
    if (last && last.role === "assistant" && Array.isArray(last.tool_calls) && last.tool_calls.length) return out;
    return [...messages, { role: "assistant", content: "(context checked: nothing to compact)" }];
  }
}

class NeverCompacts extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    return options.force ? super.compress(messages, options) : messages;
  }
}

class RejectsFocus extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    if (options.focusTopic) throw new Error("focus topics are not supported");
    return super.compress(messages, options);
  }
}

class IgnoresAbort extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const { signal: _ignored, ...rest } = options;
    return super.compress(messages, rest);
  }
}

class CompactsInPlace extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const out = await super.compress(messages, options);
    if (out === messages) return out;
    messages.splice(0, messages.length, ...out);
    return messages;
  }
}

class NoCount extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const before = this.compressionCount;
    const out = await super.compress(messages, options);
    this.compressionCount = before;
    return out;
  }
}

class ThrowsWithoutModel extends ReferenceEngine {
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    if (!this.chatModel) throw new Error("no summary model configured");
    return super.compress(messages, options);
  }
}

class ResetKeepsCount extends ReferenceEngine {
  override onSessionReset(): void {
    const count = this.compressionCount;
    super.onSessionReset();
    this.compressionCount = count;
  }
}

class StatusMissingField extends ReferenceEngine {
  override getStatus(): EngineStatus {
    const { usagePercent: _dropped, ...rest } = super.getStatus();
    return rest as EngineStatus;
  }
}

class StatusNegative extends ReferenceEngine {
  override getStatus(): EngineStatus {
    return { ...super.getStatus(), lastPromptTokens: this.lastPromptTokens };
  }
}

class DuplicateToolNames extends ReferenceEngine {
  override getToolSchemas(): ToolSchema[] {
    const [search, stats] = super.getToolSchemas();
    return [search!, { ...stats!, name: search!.name }];
  }
}

class NonJsonToolResult extends ReferenceEngine {
  override handleToolCall(name: string, args: unknown, options?: ToolCallOptions): string {
    const out = super.handleToolCall(name, args, options);
    return name === "reference_stats" && !out.includes('"error"') ? `messages: ${JSON.parse(out).messages}` : out;
  }
}

class ThrowsOnUnknownTool extends ReferenceEngine {
  override handleToolCall(name: string, args: unknown, options?: ToolCallOptions): string {
    if (!name.startsWith("reference_")) throw new Error(`no tool ${name}`);
    return super.handleToolCall(name, args, options);
  }
}

class ThrowsOnBadArguments extends ReferenceEngine {
  override handleToolCall(name: string, args: unknown, options?: ToolCallOptions): string {
    if (name.startsWith("reference_")) {
      const value = typeof args === "string" ? JSON.parse(args) : args; // throws on bad JSON
      if (name === "reference_search" && typeof (value as { query?: unknown }).query !== "string") throw new TypeError("query must be a string");
    }
    return super.handleToolCall(name, args, options);
  }
}

class EmptySelection extends ReferenceEngine {
  override selectContext(requestMessages: Message[], options?: SelectContextOptions): Message[] | null {
    const out = super.selectContext(requestMessages, options);
    return out === null ? null : [];
  }
}

class UnstableSelection extends ReferenceEngine {
  #calls = 0;
  override selectContext(requestMessages: Message[], options?: SelectContextOptions): Message[] | null {
    const out = super.selectContext(requestMessages, options);
    if (!out) return out;
    const [first, ...rest] = out;
    return [{ ...first!, content: `${contentText(first!.content)}\n(selection #${++this.#calls})` } as Message, ...rest];
  }
}

class MutatingSelection extends ReferenceEngine {
  override selectContext(requestMessages: Message[], options?: SelectContextOptions): Message[] | null {
    for (const m of options?.conversationMessages ?? []) (m as Record<string, unknown>).seen_by_engine = true;
    return super.selectContext(requestMessages, options);
  }
}

class MutatingTurnComplete extends ReferenceEngine {
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta): void {
    super.onTurnComplete(messages, usage, meta);
    const first = messages[0] as Record<string, unknown> | undefined;
    if (first) first.indexed = true;
  }
}

class TurnCompleteReturnsValue extends ReferenceEngine {
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta): void {
    super.onTurnComplete(messages, usage, meta);
    // Deliberately returns a value the contract says hosts ignore.
    return true as unknown as void;
  }
}

/** Its search tool looks through every session's transcript, not just the caller's. */
class SharedStore extends ReferenceEngine {
  protected override entriesFor(sessionId: string) {
    const own = super.entriesFor(sessionId);
    const others = [...this.sessions].filter(([id]) => id !== sessionId).flatMap(([, entries]) => entries);
    return [...own, ...others];
  }
}

class ClosesOnSessionEnd extends ReferenceEngine {
  #closed = false;
  override onSessionEnd(sessionId: string, messages: readonly Message[]): void {
    super.onSessionEnd(sessionId, messages);
    this.#closed = true; // like closing a database handle for good
  }
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    if (this.#closed) throw new Error("store is closed");
    return super.compress(messages, options);
  }
}

class ForgetsState extends ReferenceEngine {
  override onSessionEnd(): void {
    if (this.dataDir) {
      // Writes a marker file only: the transcript is lost.
      writeFileSync(`${this.dataDir}/reference-meta.json`, "{}");
    }
  }
}

/** Writes files without declaring persistence. */
class UndeclaredPersistence extends MinimalEngine {
  #dir: string | undefined;
  constructor(ctx: EngineInitContext = {}) {
    super(ctx);
    this.#dir = ctx.dataDir;
  }
  override onSessionEnd(sessionId: string): void {
    if (this.#dir) writeFileSync(`${this.#dir}/minimal-${sessionId.replace(/[^\w-]/g, "_")}.json`, "[]");
  }
  override get name() {
    return "reference";
  }
}

class UndeclaredSelect extends MinimalEngine {
  static readonly capabilities = { selectContext: false };
  override selectContext(requestMessages: Message[]): Message[] {
    return requestMessages;
  }
  override get name() {
    return "reference";
  }
}

/** Duck-typed: forwards to a real engine but is not a ContextEngine instance. */
function duckTyped(ctx: EngineInitContext): ContextEngine {
  const inner = new ReferenceEngine(ctx);
  const target = {} as Record<string | symbol, unknown>;
  return new Proxy(target, {
    get(_t, key) {
      if (key === "constructor") return ReferenceEngine;
      const value = Reflect.get(inner, key, inner) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(inner) : value;
    },
    set(_t, key, value) {
      return Reflect.set(inner, key, value, inner);
    },
    has(_t, key) {
      return key in inner;
    },
  }) as unknown as ContextEngine;
}

const ref = (E: new (ctx: EngineInitContext) => ContextEngine) => (ctx: EngineInitContext) => new E(ctx);

export const BROKEN_ENGINES: BrokenEngine[] = [
  { defect: "not-an-instance", aimedAt: "shape > is an instance of ContextEngine", create: duckTyped },
  { defect: "bad-name", aimedAt: "shape > has a name that is a non-empty identifier matching the plugin name", create: ref(BadName) },
  { defect: "nan-field", aimedAt: "shape > has finite numeric fields after construction and updateModel", create: ref(NaNField) },
  { defect: "accumulates-usage", aimedAt: "usage tracking > updateFromResponse records the last prompt, completion and total tokens", create: ref(Accumulates) },
  { defect: "rejects-buckets", aimedAt: "usage tracking > updateFromResponse accepts usage with the optional buckets and without them", create: ref(StrictUsage) },
  { defect: "strictly-above", aimedAt: "threshold > shouldCompress is false below thresholdTokens and true at or above it", create: ref(StrictlyAbove) },
  { defect: "no-recompute", aimedAt: "threshold > updateModel recomputes the threshold for a new context length", create: ref(NoThresholdRecompute) },
  { defect: "ignores-model-thresholds", aimedAt: "threshold > updateModel honours modelThresholds", create: ref(FixedThreshold) },
  { defect: "drops-tool-result", aimedAt: "compress > returns a valid OpenAI-format sequence (tool results follow their calls)", create: ref(DropsToolResult) },
  { defect: "drops-system-prompt", aimedAt: "compress > keeps the system prompt", create: ref(DropsSystemPrompt) },
  { defect: "drops-latest-user", aimedAt: "compress > keeps the latest user request", create: ref(DropsLatestUser) },
  { defect: "grows-when-fits", aimedAt: "compress > does not grow a conversation that fits", create: ref(GrowsWhenFits) },
  { defect: "never-compacts", aimedAt: "compress > shrinks a conversation well over its threshold", create: ref(NeverCompacts) },
  { defect: "rejects-focus", aimedAt: "compress > accepts a focusTopic", create: ref(RejectsFocus) },
  { defect: "ignores-abort", aimedAt: "compress > ends promptly when its signal is aborted", create: ref(IgnoresAbort) },
  { defect: "compacts-in-place", aimedAt: "compress > returns a list that later changes to the input list do not affect", create: ref(CompactsInPlace) },
  { defect: "no-count", aimedAt: "compress > raises compressionCount by exactly one per compaction", create: ref(NoCount) },
  { defect: "needs-model", aimedAt: "compress > copes with a failing, empty or missing summary model", create: ref(ThrowsWithoutModel) },
  { defect: "reset-keeps-count", aimedAt: "reset and status > onSessionReset zeroes the counters (0, never -1)", create: ref(ResetKeepsCount) },
  { defect: "status-missing-field", aimedAt: "reset and status > getStatus has the standard fields", create: ref(StatusMissingField) },
  { defect: "status-negative", aimedAt: "reset and status > getStatus never reports a negative usage", create: ref(StatusNegative) },
  { defect: "duplicate-tool-names", aimedAt: "tools > getToolSchemas returns valid JSON Schema objects with unique names", create: ref(DuplicateToolNames) },
  { defect: "non-json-tool-result", aimedAt: "tools > handleToolCall returns a JSON string for each known tool", create: ref(NonJsonToolResult) },
  { defect: "throws-on-unknown-tool", aimedAt: "tools > handleToolCall returns a JSON error for an unknown tool", create: ref(ThrowsOnUnknownTool) },
  { defect: "throws-on-bad-arguments", aimedAt: "tools > handleToolCall returns a JSON error for bad arguments", create: ref(ThrowsOnBadArguments) },
  { defect: "empty-selection", aimedAt: "selectContext > returns null or a non-empty valid list of messages", create: ref(EmptySelection) },
  { defect: "unstable-selection", aimedAt: "selectContext > gives an equal selection for the same input twice", create: ref(UnstableSelection) },
  { defect: "mutating-selection", aimedAt: "selectContext > does not mutate the request or the conversation", create: ref(MutatingSelection) },
  { defect: "undeclared-select", aimedAt: "selectContext > is the inherited no-op when not implemented", create: ref(UndeclaredSelect) },
  { defect: "mutating-turn-complete", aimedAt: "onTurnComplete > does not mutate the messages, usage or meta it receives", create: ref(MutatingTurnComplete) },
  { defect: "turn-complete-returns", aimedAt: "onTurnComplete > returns nothing (its return value is ignored)", create: ref(TurnCompleteReturnsValue) },
  { defect: "shared-store", aimedAt: "concurrency > two interleaved sessions on one instance never see each other's messages", create: ref(SharedStore) },
  { defect: "closes-on-session-end", aimedAt: "lifecycle > survives the mid-session boundary onSessionEnd(old) then onSessionStart(new)", create: ref(ClosesOnSessionEnd) },
  { defect: "forgets-state", aimedAt: "persistence > keeps its state in dataDir across instances", create: ref(ForgetsState) },
  { defect: "undeclared-persistence", aimedAt: "persistence > writes nothing to dataDir when it declares no persistence", create: ref(UndeclaredPersistence) },
];

export { compactConversation, toolError };
