import { estimateTextTokens, type CompressOptions, type Message, type SelectContextOptions } from "@context-engine/core";
import { tool } from "@langchain/core/tools";
import { createAgent, HumanMessage } from "langchain";
import { describe, expect, it } from "vitest";
import { contextEngineMiddleware } from "../src/index.js";
import { ToolEngine, answer, fakeModel } from "./helpers.js";

/**
 * `budgetTokens` is what the request will take (core's contract, as the host gives it): the window less
 * the output the request reserves and every tool schema bound to it, in compress and in selectContext.
 */
class BudgetEngine extends ToolEngine {
  readonly budgets: Array<{ hook: string; budget: number | undefined }> = [];
  override compress(messages: Message[], options?: CompressOptions) {
    this.budgets.push({ hook: "compress", budget: options?.budgetTokens });
    return messages;
  }
  override selectContext(_request: Message[], options?: SelectContextOptions) {
    this.budgets.push({ hook: "selectContext", budget: options?.budgetTokens });
    return null;
  }
}

const WINDOW = 10_000;
const weather = tool(async (input: { city?: string }) => `sunny in ${input.city}`, {
  name: "get_weather",
  description: "Weather for a city, today and for the next three days",
  schema: { type: "object", properties: { city: { type: "string", description: "the city's name" } }, required: ["city"] },
});

async function budgetsOf(options: { tools?: unknown[]; outputReserveTokens?: number }) {
  const engine = new BudgetEngine();
  engine.compressNow = true;
  const model = fakeModel().respond(answer("ok"));
  const agent = createAgent({ model, tools: (options.tools ?? []) as never, middleware: [contextEngineMiddleware({ engine, contextLength: WINDOW, outputReserveTokens: options.outputReserveTokens })] });
  await agent.invoke({ messages: [new HumanMessage("hi")] });
  return engine.budgets;
}

describe("budgetTokens in the LangChain middleware", () => {
  it("is the window less the output reserve and every bound tool schema (the agent's and the engine's), in compress and selectContext", async () => {
    const withTools = await budgetsOf({ tools: [weather], outputReserveTokens: 2000 });
    expect(withTools.map((b) => b.hook)).toEqual(["compress", "selectContext"]);
    const [compress, select] = withTools.map((b) => b.budget!) as [number, number];
    expect(compress).toBe(select);
    const bare = await budgetsOf({});
    const engineToolOnly = bare[1]!.budget!;
    // The engine's own tool is bound to every request.
    expect(engineToolOnly).toBeLessThan(WINDOW - 20);
    // The agent's tool and the reserve come off too.
    const weatherTokens = estimateTextTokens(JSON.stringify({ type: "function", function: { name: "get_weather", description: "Weather for a city, today and for the next three days", parameters: weather.schema } }));
    expect(engineToolOnly - 2000 - select).toBeGreaterThanOrEqual(weatherTokens - 10);
    expect(engineToolOnly - 2000 - select).toBeLessThanOrEqual(weatherTokens + 10);
  });

  it("the model's own maxTokens is the reserve when it sets one", async () => {
    const engine = new BudgetEngine();
    const model = fakeModel().respond(answer("ok"));
    (model as unknown as { maxTokens: number }).maxTokens = 1500;
    const agent = createAgent({ model, middleware: [contextEngineMiddleware({ engine, contextLength: WINDOW, outputReserveTokens: 10 })] });
    await agent.invoke({ messages: [new HumanMessage("hi")] });
    const reference = await budgetsOf({ outputReserveTokens: 1500 });
    expect(engine.budgets.at(-1)!.budget).toBe(reference.at(-1)!.budget);
  });
});
