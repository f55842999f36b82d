// A consumer of the published types: compiled against dist/ under several resolutions, skipLibCheck off.
import { ContextEngine, type CompressOptions, type Message, type Usage } from "@context-engine/core";
import { createScriptedChatModel, type ScriptedChatModel } from "@context-engine/core/test";
import { describeContextEngineContract, exampleArguments, type ContractOptions, type EngineCapabilities } from "@context-engine/contract-tests";
import { allFixtures, cloneMessages, fixtures, type ConversationFixture } from "@context-engine/contract-tests/fixtures";

class ConsumerEngine extends ContextEngine {
  get name(): string {
    return "consumer";
  }
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }
  shouldCompress(promptTokens?: number): boolean {
    return this.thresholdTokens > 0 && (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens;
  }
  compress(messages: Message[], _options?: CompressOptions): Message[] {
    return messages;
  }
}

const model: ScriptedChatModel = createScriptedChatModel({ script: ["hello"] });
const caps: EngineCapabilities = { tools: false, synchronous: true, ownsThresholdPolicy: false };
const first: ConversationFixture = fixtures.codingSession;
const copy: Message[] = cloneMessages(first.messages);
const options: ContractOptions = { name: "consumer", createEngine: () => new ConsumerEngine(), capabilities: caps, extraFixtures: allFixtures() };
const args: Record<string, unknown> = exampleArguments({ type: "object", properties: { q: { type: "string" } }, required: ["q"] }, "x");
export { args, copy, describeContextEngineContract, model, options };
