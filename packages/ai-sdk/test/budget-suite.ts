import { ContextEngine, estimateTextTokens } from "@context-engine/core";
import type { CompressOptions, Message, SelectContextOptions, ToolSchema } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contextEngineMiddleware, createContextSession } from "../src/index.js";
import { scriptedModel } from "./harness.js";
import type { SdkKit } from "./harness.js";

/**
 * `budgetTokens` is what the call will take (core's contract, as the host gives it): the engine's window
 * less the call's output reserve and every tool schema it sends, never the whole window.
 */
class BudgetEngine extends ContextEngine {
  readonly compressBudgets: Array<number | undefined> = [];
  readonly selectBudgets: Array<number | undefined> = [];
  constructor(window: number) {
    super();
    this.contextLength = window;
  }
  get name() {
    return "budget";
  }
  updateFromResponse(): void {}
  shouldCompress(): boolean {
    return true;
  }
  compress(messages: Message[], options?: CompressOptions): Message[] {
    this.compressBudgets.push(options?.budgetTokens);
    return messages;
  }
  override selectContext(_messages: Message[], options?: SelectContextOptions): Message[] | null {
    this.selectBudgets.push(options?.budgetTokens);
    return null;
  }
  override getToolSchemas(): ToolSchema[] {
    return [{ name: "ctx_search", description: "Search the stored history", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } }];
  }
}

const WINDOW = 8000;
const readFile = { description: "Read a file from the workspace by its path", inputSchema: z.object({ path: z.string().describe("the path, relative to the workspace") }) };

export function budgetSuite(kit: SdkKit) {
  describe(`ai@${kit.major} budgetTokens`, () => {
    it("prepareStep: the window less maxOutputTokens and every tool schema (the agent's and the engine's), in compress and selectContext", async () => {
      const engine = new BudgetEngine(WINDOW);
      const session = createContextSession(engine, { contextLength: WINDOW, maxOutputTokens: 1000, tools: { read: readFile } });
      const { model } = scriptedModel(kit, [{ text: "done" }]);
      await kit.generateText({ model, prompt: "hi", maxOutputTokens: 1000, tools: { ...session.tools(), read: readFile }, prepareStep: session.prepareStep });
      const budget = engine.selectBudgets[0]!;
      expect(engine.compressBudgets[0]).toBe(budget);
      // Both tool schemas are out, and the output reserve.
      const engineTool = estimateTextTokens(JSON.stringify([{ type: "function", function: engine.getToolSchemas()[0] }]));
      expect(budget).toBeLessThan(WINDOW - 1000 - engineTool);
      expect(budget).toBeGreaterThan(WINDOW - 1000 - engineTool - 200);
      const bare = new BudgetEngine(WINDOW);
      const plain = createContextSession(bare, { contextLength: WINDOW });
      await kit.generateText({ model: scriptedModel(kit, [{ text: "done" }]).model, prompt: "hi", prepareStep: plain.prepareStep });
      expect(bare.selectBudgets[0]).toBe(WINDOW - engineTool);
    });

    it("middleware: the call's own maxOutputTokens and tools decide it", async () => {
      const engine = new BudgetEngine(WINDOW);
      const { model } = scriptedModel(kit, [{ text: "done" }]);
      const wrapped = kit.wrapLanguageModel({ model, middleware: contextEngineMiddleware(engine, { specificationVersion: kit.specificationVersion }) });
      await kit.generateText({ model: wrapped, prompt: "hi", maxOutputTokens: 3000, tools: { read: readFile } });
      const withTools = engine.selectBudgets[0]!;
      expect(engine.compressBudgets[0]).toBe(withTools);
      expect(withTools).toBeLessThan(WINDOW - 3000 - 10);
      expect(withTools).toBeGreaterThan(WINDOW - 3000 - 200);
      const other = new BudgetEngine(WINDOW);
      const bare = kit.wrapLanguageModel({ model: scriptedModel(kit, [{ text: "done" }]).model, middleware: contextEngineMiddleware(other, { specificationVersion: kit.specificationVersion, outputReserveTokens: 500 }) });
      await kit.generateText({ model: bare, prompt: "hi" });
      expect(other.selectBudgets[0]).toBe(WINDOW - 500);
    });
  });
}
