import { checkConversation } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contextEngineMiddleware, createContextSession, toOpenAIMessages } from "../src/index.js";
import type { AdapterEvent, SdkMessage } from "../src/index.js";
import { BrokenEngine, LatestTurnEngine, RecordingEngine, TailEngine, ToolEngine } from "./engines.js";
import type { Failure } from "./engines.js";
import { readable, scriptedModel, seen } from "./harness.js";
import type { Scripted, SdkKit } from "./harness.js";

const readFile = {
  description: "Read a file",
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }: { path: string }) => `contents of ${path}`,
};

/** Two tool rounds, then an answer. */
const toolScript: Scripted[] = [
  { calls: [{ id: "c1", name: "read", input: { path: "a.ts" } }] },
  { calls: [{ id: "c2", name: "read", input: { path: "b.ts" } }, { id: "c3", name: "read", input: { path: "c.ts" } }] },
  { text: "done" },
];

const SYSTEM = "You are a careful agent.";

export function loopSuite(kit: SdkKit) {
  const run = (model: unknown, extra: Record<string, unknown>) =>
    kit.generateText({ model, tools: { read: readFile }, stopWhen: kit.stepCountIs(8), [kit.systemKey]: SYSTEM, ...extra });

  describe(`ai@${kit.major} generateText with prepareStep`, () => {
    it("a no-op engine leaves every request exactly as the bare loop sends it", async () => {
      const bare = scriptedModel(kit, toolScript);
      await run(bare.model, { prompt: "fix the bug" });
      const adapted = scriptedModel(kit, toolScript);
      const engine = new RecordingEngine();
      const session = createContextSession(engine, { instructions: SYSTEM });
      const result = await run(adapted.model, { prompt: "fix the bug", prepareStep: session.prepareStep });
      expect(adapted.prompts).toEqual(bare.prompts);
      expect(result.text).toBe("done");
      await session.finish(result);
      expect(engine.usages).toHaveLength(3);
    });

    it("the model sees exactly the compacted conversation the engine returned, and history() keeps it", async () => {
      const engine = new TailEngine(2);
      const { model, prompts } = scriptedModel(kit, toolScript);
      const session = createContextSession(engine, { instructions: SYSTEM });
      const messages: SdkMessage[] = [
        { role: "user", content: "old question" },
        { role: "assistant", content: "old answer" },
        { role: "user", content: "fix the bug" },
      ];
      const result = await run(model, { messages, prepareStep: session.prepareStep, onStepFinish: session.onStepFinish });
      expect(result.text).toBe("done");
      expect(engine.decisions.length).toBeGreaterThan(0);
      // Each step's prompt is what the engine decided for it (its last decision before that step).
      const last = engine.decisions[engine.decisions.length - 1]!;
      expect(seen(prompts[prompts.length - 1]!)).toEqual(readable(last));
      for (const prompt of prompts) expect(checkConversation(toOpenAIMessages(prompt))).toEqual([]);
      const history = await session.finish(result);
      for (const m of history) expect(kit.modelMessageSchema.safeParse(m).success).toBe(true);
      expect(history[0]).toMatchObject({ role: "user", content: expect.stringContaining("[summary of") });
      expect(history[history.length - 1]).toMatchObject({ role: "assistant" });
      // The next turn starts from the engine's conversation, not the original one.
      const next = scriptedModel(kit, [{ text: "again" }]);
      const second = await run(next.model, { messages: [...history, { role: "user", content: "and now?" }], prepareStep: session.prepareStep });
      expect(second.text).toBe("again");
      const firstSeen = seen(next.prompts[0]!);
      expect(JSON.stringify(firstSeen)).not.toContain("old question");
      expect(firstSeen[firstSeen.length - 1]).toMatchObject({ role: "user", text: "and now?" });
    });

    it("a caller that keeps its own full list still gets the compacted conversation sent", async () => {
      const engine = new TailEngine(2);
      const session = createContextSession(engine, { instructions: SYSTEM });
      const first = scriptedModel(kit, toolScript);
      const start: SdkMessage[] = [
        { role: "user", content: "old question" },
        { role: "assistant", content: "old answer" },
        { role: "user", content: "fix the bug" },
      ];
      const result = await run(first.model, { messages: start, prepareStep: session.prepareStep });
      await session.finish(result);
      // The caller ignores history() and continues from everything it has.
      const full = [...start, ...(result.responseMessages ?? result.response.messages), { role: "user", content: "next" }];
      const next = scriptedModel(kit, [{ text: "fine" }]);
      await run(next.model, { messages: full, prepareStep: session.prepareStep });
      const sent = seen(next.prompts[0]!);
      expect(JSON.stringify(sent)).not.toContain("old question");
      expect(sent[sent.length - 1]).toMatchObject({ role: "user", text: "next" });
    });

    it("feeds every step's usage, cached and reasoning tokens included", async () => {
      const engine = new RecordingEngine();
      const { model } = scriptedModel(kit, toolScript);
      const session = createContextSession(engine);
      const result = await run(model, { prompt: "go", prepareStep: session.prepareStep, onStepFinish: session.onStepFinish });
      await session.finish(result);
      expect(engine.usages).toHaveLength(3);
      expect(engine.usages[0]).toMatchObject({ prompt_tokens: 100, completion_tokens: 10, cache_read_tokens: 40, cache_write_tokens: 3, reasoning_tokens: 2 });
      expect(engine.lastPromptTokens).toBe(102);
    });

    it("a selection changes one request, never the history", async () => {
      const engine = new LatestTurnEngine();
      const { model, prompts } = scriptedModel(kit, [{ text: "one" }]);
      const session = createContextSession(engine, { instructions: SYSTEM });
      const messages: SdkMessage[] = [
        { role: "user", content: "first" },
        { role: "assistant", content: "reply" },
        { role: "user", content: "second" },
      ];
      const result = await run(model, { messages, prepareStep: session.prepareStep });
      expect(seen(prompts[0]!)).toEqual([
        { role: "system", text: SYSTEM },
        { role: "user", text: "second" },
      ]);
      const history = await session.finish(result);
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    });

    it("exposes the engine's tools to the loop", async () => {
      const engine = new ToolEngine();
      const { model } = scriptedModel(kit, [{ calls: [{ id: "t1", name: "ctx_count", input: { role: "user" } }] }, { text: "ok" }]);
      const session = createContextSession(engine);
      const result = await kit.generateText({
        model,
        prompt: "count",
        tools: session.tools(),
        stopWhen: kit.stepCountIs(4),
        prepareStep: session.prepareStep,
      });
      const toolResult = result.steps[0].toolResults[0];
      expect(JSON.parse(toolResult.output)).toMatchObject({ tool: "ctx_count", count: 1 });
    });

    for (const failure of ["throw", "hang", "garbage", "orphan"] as Failure[]) {
      it(`an engine that fails by "${failure}" never breaks the loop: the model sees the original messages`, async () => {
        const events: AdapterEvent[] = [];
        const engine = new BrokenEngine(failure);
        const session = createContextSession(engine, { timeoutMs: 50, onEvent: (e) => events.push(e), instructions: SYSTEM });
        const bare = scriptedModel(kit, toolScript);
        await run(bare.model, { prompt: "go" });
        const { model, prompts } = scriptedModel(kit, toolScript);
        const tools = { read: readFile, ...session.tools() };
        const result = await kit.generateText({
          model,
          prompt: "go",
          tools,
          [kit.systemKey]: SYSTEM,
          stopWhen: kit.stepCountIs(8),
          prepareStep: session.prepareStep,
          onStepFinish: session.onStepFinish,
        });
        expect(result.text).toBe("done");
        expect(prompts).toEqual(bare.prompts);
        await session.finish(result);
        expect(events.some((e) => e.type === "engine-error")).toBe(true);
        if (failure !== "throw") {
          const tool = session.tools().broken_tool as { execute: (input: unknown, ctx: unknown) => Promise<string> };
          expect(JSON.parse(await tool.execute({}, {}))).toHaveProperty("error");
        }
      });
    }
  });

  describe(`ai@${kit.major} streamText with prepareStep`, () => {
    it("streams through a compacting engine and the model sees its decision", async () => {
      const engine = new TailEngine(2);
      const { model, prompts } = scriptedModel(kit, toolScript);
      const session = createContextSession(engine, { instructions: SYSTEM });
      const result = kit.streamText({
        model,
        tools: { read: readFile },
        [kit.systemKey]: SYSTEM,
        messages: [
          { role: "user", content: "old" },
          { role: "assistant", content: "older" },
          { role: "user", content: "go" },
        ],
        stopWhen: kit.stepCountIs(8),
        prepareStep: session.prepareStep,
        onStepFinish: session.onStepFinish,
      });
      expect(await result.text).toBe("done");
      const last = engine.decisions[engine.decisions.length - 1]!;
      expect(seen(prompts[prompts.length - 1]!)).toEqual(readable(last));
      const history = await session.finish({ steps: result.steps, response: result.response, ...(kit.major === 7 ? { responseMessages: result.responseMessages } : {}) });
      expect(history[history.length - 1]).toMatchObject({ role: "assistant" });
      expect(checkConversation(toOpenAIMessages(history))).toEqual([]);
    });
  });

  describe(`ai@${kit.major} language-model middleware`, () => {
    it("compacts prompts of code that does not use prepareStep and feeds usage", async () => {
      const engine = new TailEngine(2);
      const { model, prompts } = scriptedModel(kit, toolScript);
      const wrapped = kit.wrapLanguageModel({ model, middleware: contextEngineMiddleware(engine, { specificationVersion: kit.specificationVersion }) });
      const result = await run(wrapped, {
        messages: [
          { role: "user", content: "old" },
          { role: "assistant", content: "older" },
          { role: "user", content: "go" },
        ],
      });
      expect(result.text).toBe("done");
      expect(engine.usages).toHaveLength(3);
      expect(engine.usages[0]).toMatchObject({ cache_read_tokens: 40 });
      const last = engine.decisions[engine.decisions.length - 1]!;
      expect(seen(prompts[prompts.length - 1]!)).toEqual(readable(last));
      for (const prompt of prompts) expect(checkConversation(toOpenAIMessages(prompt))).toEqual([]);
    });

    it("a later call that repeats the compacted messages is sent compacted again", async () => {
      const engine = new TailEngine(2);
      const first = scriptedModel(kit, [{ text: "one" }, { text: "two" }]);
      const wrapped = kit.wrapLanguageModel({ model: first.model, middleware: contextEngineMiddleware(engine, { specificationVersion: kit.specificationVersion }) });
      const messages: SdkMessage[] = [
        { role: "user", content: "alpha" },
        { role: "assistant", content: "beta" },
        { role: "user", content: "gamma" },
        { role: "assistant", content: "delta" },
        { role: "user", content: "epsilon" },
      ];
      await kit.generateText({ model: wrapped, messages });
      expect(JSON.stringify(seen(first.prompts[0]!))).not.toContain("alpha");
      engine.shouldCompress = () => false;
      await kit.generateText({ model: wrapped, messages: [...messages, { role: "assistant", content: "one" }, { role: "user", content: "zeta" }] });
      const second = seen(first.prompts[1]!);
      expect(JSON.stringify(second)).not.toContain("alpha");
      expect(second[second.length - 1]).toMatchObject({ role: "user", text: "zeta" });
    });

    it("a broken engine leaves prompts untouched", async () => {
      for (const failure of ["throw", "hang", "garbage"] as Failure[]) {
        const bare = scriptedModel(kit, toolScript);
        await run(bare.model, { prompt: "go" });
        const { model, prompts } = scriptedModel(kit, toolScript);
        const wrapped = kit.wrapLanguageModel({
          model,
          middleware: contextEngineMiddleware(new BrokenEngine(failure), { specificationVersion: kit.specificationVersion, timeoutMs: 50 }),
        });
        const result = await run(wrapped, { prompt: "go" });
        expect(result.text).toBe("done");
        expect(prompts).toEqual(bare.prompts);
      }
    });
  });
}
