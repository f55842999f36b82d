import { ContextEngine, type Message, type Usage } from "../src/index.js";

/** The smallest engine that implements only the required members. */
export class MinimalEngine extends ContextEngine {
  compressCalls = 0;
  get name() {
    return "minimal";
  }
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }
  shouldCompress(promptTokens?: number): boolean {
    return (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens;
  }
  compress(messages: Message[]): Message[] {
    this.compressCalls++;
    this.compressionCount++;
    return messages;
  }
}
