import { estimateTextTokens } from "@context-engine/core";
import type { ToolSchema } from "@context-engine/core";

/**
 * What a request costs beyond its messages: the tool schemas, and the
 * provider's own overhead learnt from real usage (the prompt tokens it
 * reported against the tokens of the last request `selectContext` saw).
 */
export class RequestSize {
  #schemaTokens: number | null = null;
  /** Tokens of the last request selectContext saw or produced. */
  lastRequestTokens = 0;
  #overhead = 0;

  constructor(private readonly schemas: () => ToolSchema[]) {}

  /** Tokens a request carries beyond its messages (the larger of the tool schemas and the learnt overhead). */
  beyondMessages(): number {
    if (this.#schemaTokens === null) this.#schemaTokens = estimateTextTokens(JSON.stringify(this.schemas()));
    return Math.max(this.#schemaTokens, this.#overhead);
  }

  /** The provider's usage for the last request: learn its overhead (at most half the window). */
  noteUsage(promptTokens: number, window: number): void {
    if (this.lastRequestTokens > 0 && promptTokens > 0) this.#overhead = Math.max(0, Math.min(Math.floor(window / 2), promptTokens - this.lastRequestTokens));
    this.lastRequestTokens = 0;
  }
}
