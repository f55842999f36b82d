import { ContextEngine } from "@context-engine/core";
import type { Message } from "@context-engine/core";

/**
 * Stands in for an engine whose factory threw: it changes nothing, so
 * OpenClaw keeps its own messages (a failing engine is never worse than
 * none). `reason` says why, for status and logs.
 */
export class InertEngine extends ContextEngine {
  constructor(readonly reason: string) {
    super();
  }
  get name(): string {
    return "inert";
  }
  updateFromResponse(): void {}
  shouldCompress(): boolean {
    return false;
  }
  compress(messages: Message[]): Message[] {
    return messages;
  }
}
