import { defaultTokenCounter, estimateTextTokens, type Message, type SelectContextOptions, type ToolSchema } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine } from "../src/index.js";
import { toOpenAiMessages } from "../src/convert-to-openai.js";
import { RecordingEngine } from "./engines.js";
import { transcript } from "./fixtures.js";

/**
 * `budgetTokens` is what OpenClaw will let the messages take (core's contract): its own budget less the
 * engine's tool schemas the adapter registers, or, without a usable budget, the window less OpenClaw's
 * output reserve and those schemas; in compress and in selectContext alike, never the whole window.
 */
class BudgetEngine extends RecordingEngine {
  constructor(window: number) {
    super(2);
    this.contextLength = window;
  }
  override shouldCompress() {
    return true;
  }
  override selectContext(messages: Message[], options: SelectContextOptions = {}) {
    this.selectCalls.push({ size: messages.length, options });
    return null;
  }
  override getToolSchemas(): ToolSchema[] {
    return [{ name: "lcm_grep", description: "Search the whole stored history of this conversation", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } }];
  }
}

const base = { sessionId: "s1", sessionKey: "agent:main:s1" };
const WINDOW = 32_000;

function toolTokens(engine: BudgetEngine): number {
  return estimateTextTokens(JSON.stringify(engine.getToolSchemas().map((s) => ({ type: "function", function: s }))));
}

describe("budgetTokens in the OpenClaw adapter", () => {
  it("OpenClaw's budget less the engine's tool schemas, in compress and selectContext", async () => {
    const engine = new BudgetEngine(WINDOW);
    const oc = createOpenClawContextEngine({ id: "budget", factory: () => engine });
    await oc.assemble({ ...base, messages: transcript(4), tokenBudget: 20_000 });
    const expected = 20_000 - toolTokens(engine);
    expect(engine.selectCalls.at(-1)!.options.budgetTokens).toBe(expected);
    expect(engine.compressCalls.length).toBeGreaterThan(0);
    for (const c of engine.compressCalls) expect(c.options.budgetTokens).toBe(expected);
  });

  it("without a usable budget: the window less OpenClaw's output reserve and the tool schemas, never the whole window", async () => {
    const engine = new BudgetEngine(WINDOW);
    const oc = createOpenClawContextEngine({ id: "budget", factory: () => engine });
    // A budget of 1 is OpenClaw's "no room by my reserve policy", not a budget.
    await oc.assemble({ ...base, messages: transcript(4), tokenBudget: 1, runtimeSettings: { limits: { maxOutputTokens: 4000 } } });
    const window = engine.windows.at(-1) ?? WINDOW;
    expect(engine.selectCalls.at(-1)!.options.budgetTokens).toBe(window - 4000 - toolTokens(engine));
    expect(engine.selectCalls.at(-1)!.options.budgetTokens).toBeLessThan(window);
  });
});

/** Fits to its own count (text only, no per-message or tool-call overhead): lower than the adapter's count. */
class UndercountingEngine extends RecordingEngine {
  override shouldCompress() {
    return false;
  }
  override selectContext(messages: Message[], options: SelectContextOptions = {}) {
    this.selectCalls.push({ size: messages.length, options });
    const own = (m: Message) => Math.ceil((typeof m.content === "string" ? m.content.length : 0) / 4);
    let used = 0;
    let start = messages.length;
    while (start > 0 && used + own(messages[start - 1]!) <= (options.budgetTokens ?? Infinity)) used += own(messages[--start]!);
    while (start < messages.length && messages[start]!.role !== "user") start++;
    return messages.slice(start);
  }
}

describe("an assemble result fits OpenClaw's budget as the adapter counts it", () => {
  it("re-fits with the budget cut by the overshoot when the engine's own count is lower", async () => {
    const engine = new UndercountingEngine();
    const oc = createOpenClawContextEngine({ id: "under", factory: () => engine });
    const messages = transcript(40);
    const budget = 600;
    const result = await oc.assemble({ ...base, messages, tokenBudget: budget, prompt: "next" });
    const counted = defaultTokenCounter.countMessages(toOpenAiMessages(result.messages).messages);
    expect(engine.selectCalls.length, "the engine was asked again with a smaller budget").toBeGreaterThan(1);
    expect(engine.selectCalls[1]!.options.budgetTokens).toBeLessThan(engine.selectCalls[0]!.options.budgetTokens!);
    expect(counted).toBeLessThanOrEqual(budget);
    expect(result.estimatedTokens).toBeLessThanOrEqual(budget);
    expect(result.messages.length).toBeGreaterThan(0);
  });

  it("a result that fits by both counts is not refitted", async () => {
    const engine = new UndercountingEngine();
    const oc = createOpenClawContextEngine({ id: "under", factory: () => engine });
    await oc.assemble({ ...base, messages: transcript(2), tokenBudget: 5_000, prompt: "next" });
    expect(engine.selectCalls).toHaveLength(1);
  });
});
