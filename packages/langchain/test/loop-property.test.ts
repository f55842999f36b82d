import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createAgent } from "langchain";
import { ContextEngine } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { contextEngineMiddleware, fromOpenAIMessage, toOpenAIMessages } from "../src/index.js";
import { answer, fakeModel } from "./helpers.js";
import { conversation } from "./arbitraries.js";

/** Keeps the system head and the last `keepTurns` user turns, as re-rendered copies (like a store would). */
class TurnWindowEngine extends ContextEngine {
  returned: Message[] | null = null;
  constructor(private readonly keepTurns: number) {
    super();
  }
  get name() {
    return "turn-window";
  }
  updateFromResponse() {}
  shouldCompress() {
    return false;
  }
  compress(m: Message[]) {
    return m;
  }
  override selectContext(request: Message[]) {
    const head = request.filter((m, i) => i === 0 && (m.role === "system" || m.role === "developer"));
    const starts = request.map((m, i) => (m.role === "user" ? i : -1)).filter((i) => i >= 0);
    const from = starts[Math.max(0, starts.length - this.keepTurns)] ?? 0;
    this.returned = JSON.parse(JSON.stringify([...head, ...request.slice(from)]));
    return this.returned;
  }
}

/** Compacts once: a summary, then the last `keepTurns` user turns, as re-rendered copies. */
class TurnCompactor extends ContextEngine {
  returned: Message[] | null = null;
  constructor(private readonly keepTurns: number) {
    super();
  }
  get name() {
    return "turn-compactor";
  }
  updateFromResponse() {}
  shouldCompress() {
    return this.returned === null;
  }
  compress(request: Message[]) {
    const head = request.filter((m, i) => i === 0 && (m.role === "system" || m.role === "developer"));
    const starts = request.map((m, i) => (m.role === "user" ? i : -1)).filter((i) => i >= 0);
    const from = starts[Math.max(0, starts.length - this.keepTurns)] ?? 0;
    this.returned = JSON.parse(JSON.stringify([...head, { role: "user", content: "[summary]" }, ...request.slice(from)]));
    return this.returned!;
  }
}

describe("createAgent loop over generated conversations", () => {
  it("a compaction becomes the state's history exactly; kept messages keep their ids", async () => {
    await fc.assert(
      fc.asyncProperty(conversation, fc.integer({ min: 1, max: 3 }), async (messages, keepTurns) => {
        const body = messages[0]!.role === "user" ? messages : messages.slice(1);
        const history = [...body, { role: "user" as const, content: "next?" }].map(fromOpenAIMessage);
        const engine = new TurnCompactor(keepTurns);
        const model = fakeModel().respond(answer("ok"));
        const agent = createAgent({ model, systemPrompt: "be brief", middleware: [contextEngineMiddleware({ engine })] });
        const out = await agent.invoke({ messages: history });
        const seen = toOpenAIMessages(model.calls[0]!.messages);
        expect(seen).toEqual(engine.returned);
        // The agent's system prompt is not written into history.
        expect(toOpenAIMessages(out.messages.slice(0, -1))).toEqual(engine.returned!.slice(1));
        const inputIds = new Set(history.map((m) => m.id));
        const kept = out.messages.slice(1, -1);
        expect(kept.every((m) => typeof m.id === "string" && inputIds.has(m.id))).toBe(true);
      }),
      { numRuns: 12 },
    );
  });

  it("the model sees exactly the engine's selection, tool pairs and images included", async () => {
    await fc.assert(
      fc.asyncProperty(conversation, fc.integer({ min: 1, max: 3 }), async (messages, keepTurns) => {
        // The agent's own system prompt is not part of the history.
        const body = messages[0]!.role === "user" ? messages : messages.slice(1);
        const history = [...body, { role: "user" as const, content: "next?" }].map(fromOpenAIMessage);
        const engine = new TurnWindowEngine(keepTurns);
        const model = fakeModel().respond(answer("ok"));
        const agent = createAgent({ model, systemPrompt: "be brief", middleware: [contextEngineMiddleware({ engine })] });
        const out = await agent.invoke({ messages: history });
        expect(toOpenAIMessages(model.calls[0]!.messages)).toEqual(engine.returned);
        // Request-only: the state still has every message, in order.
        expect(toOpenAIMessages(out.messages.slice(0, -1))).toEqual(toOpenAIMessages(history));
      }),
      { numRuns: 12 },
    );
  });
});
