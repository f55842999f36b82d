// Engines the contract allows although they differ from the reference: the kit must pass each.
import { ContextEngine, type CompressOptions, type EngineInitContext, type Message, type Usage, type UpdateModelOptions } from "@context-engine/core";
import { CooldownEngine } from "./broken-engines-2.js";
import { ReferenceEngine } from "./reference-engine.js";

/** Overrides updateModel with its own policy and ignores modelThresholds ("may honor or ignore the map"). */
export class OwnPolicyEngine extends ReferenceEngine {
  override updateModel(_model: string, contextLength: number, _options?: UpdateModelOptions): void {
    this.contextLength = contextLength;
    // Leaves 20% of the window free, whatever the model.
    this.thresholdTokens = Math.floor(contextLength * 0.8);
  }
}

/** Same policy, declared instead of inferred. */
export class DeclaredOwnPolicyEngine extends OwnPolicyEngine {
  static override readonly capabilities = { ...ReferenceEngine.capabilities, ownsThresholdPolicy: true };
}

/** Overrides updateModel, calls super and so honours the map correctly. */
export class HonouringOverrideEngine extends ReferenceEngine {
  override updateModel(model: string, contextLength: number, options?: UpdateModelOptions): void {
    super.updateModel(model, contextLength, options);
    this.protectLastN = contextLength > 100_000 ? 8 : 6;
  }
}

/** compress returns its list directly (no promise) and has no tools. */
export class SynchronousEngine extends ContextEngine {
  static readonly capabilities = { synchronous: true };
  constructor(ctx: EngineInitContext = {}) {
    super();
    this.contextLength = ctx.contextLength ?? 0;
  }
  get name() {
    return "minimal";
  }
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }
  shouldCompress(promptTokens?: number): boolean {
    return this.thresholdTokens > 0 && (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens;
  }
  compress(messages: Message[], options: CompressOptions = {}): Message[] {
    const tokens = options.currentTokens ?? 0;
    if (!options.force && tokens < this.thresholdTokens) return messages;
    if (options.signal?.aborted) return messages;
    let head = 0;
    while (head < messages.length && messages[head]!.role === "system") head++;
    let start = Math.max(head, messages.length - 4);
    let lastUser = messages.length - 1;
    while (lastUser >= 0 && messages[lastUser]!.role !== "user") lastUser--;
    if (lastUser >= head && lastUser < start) start = lastUser;
    while (start > head && messages[start]!.role === "tool") start--;
    if (start <= head) return messages;
    this.compressionCount++;
    return [...messages.slice(0, head), { role: "user", content: `[${start - head} earlier messages dropped]` }, ...messages.slice(start)];
  }
}

/** One instance per session (the factory model): it does not serve interleaved sessions. */
export class OnePerSessionEngine extends ReferenceEngine {
  static override readonly capabilities = { ...ReferenceEngine.capabilities, concurrentSessions: false };
}

export { CooldownEngine };
