import { estimateTextTokens, type CompressOptions, type Message, type SelectContextOptions } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { hostConfigFromFile } from "../src/index.js";
import { SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

/**
 * The budget is explicit: engines get, as `budgetTokens`, what the host will enforce on the request:
 * the window less the output reserve and every tool schema it sends (the agent's and the engine's).
 */
const server = useFakeServer();

const readFile = { type: "function" as const, function: { name: "read_file", description: "Read a file from the workspace", parameters: { type: "object", properties: { path: { type: "string" } } } } };

class BudgetEngine extends SelectingEngine {
  /** The options of every compress call. */
  get compressOptions(): CompressOptions[] {
    return this.calls.filter((c) => c.hook === "compress").map((c) => (c.args[1] ?? {}) as CompressOptions);
  }
}

function schemaTokens(session: { tools: readonly unknown[] }): number {
  return estimateTextTokens(JSON.stringify(session.tools));
}

describe("the input budget engines are given", () => {
  it("is the window less the output reserve and every tool schema, in selectContext and in compress; max_tokens carries the reserve", async () => {
    server.script([{ content: "one" }, { content: "two" }]);
    const engine = new BudgetEngine();
    let seen: SelectContextOptions | undefined;
    engine.selectImpl = (_request, options) => {
      seen = options;
      return null;
    };
    const { host } = makeHost(server, { engine, tools: [readFile], config: { outputReserveTokens: 1000 } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("hello");
    const tools = schemaTokens(session);
    expect(tools).toBeGreaterThan(20);
    expect(seen!.budgetTokens).toBe(8000 - 1000 - tools);
    expect(server.requests[0]!.body.max_tokens).toBe(1000);
    await session.compress();
    expect(engine.compressOptions.at(-1)!.budgetTokens).toBe(8000 - 1000 - tools);
  });

  it("refuses a request over the window less the reserve, and never sends it", async () => {
    const engine = new BudgetEngine();
    engine.forceShouldCompress = false;
    engine.keep = 1_000;
    const { host, ofType } = makeHost(server, { engine, config: { outputReserveTokens: 300 } });
    const session = await host.openSession({ model: "test-model", contextLength: 1000 });
    // ~800 tokens: under the window, over the window less the reserve.
    const result = await session.send("word ".repeat(750));
    expect(result.exitReason).toBe("context_budget_exceeded");
    expect(result.error!.message).toMatch(/1000-token window less the 300 tokens kept for the answer/);
    expect(result.error!.message).not.toMatch(/\/compress/);
    expect(server.requests).toHaveLength(0);
    expect(ofType("request.over_budget")).toHaveLength(1);
  });

  it("caps the reserve at half the window and sends no max_tokens without one", async () => {
    server.script([{ content: "a" }, { content: "b" }]);
    let seen: SelectContextOptions | undefined;
    const engine = new BudgetEngine();
    engine.selectImpl = (_r, o) => ((seen = o), null);
    const capped = makeHost(server, { engine, config: { outputReserveTokens: 50_000 } });
    const s1 = await capped.host.openSession({ model: "test-model", contextLength: 4000 });
    await s1.send("hi");
    expect(seen!.budgetTokens).toBe(2000 - schemaTokens(s1));
    const plain = makeHost(server, { engine: new BudgetEngine() });
    const s2 = await plain.host.openSession({ model: "test-model", contextLength: 4000 });
    await s2.send("hi");
    expect(server.requests.at(-1)!.body.max_tokens).toBeUndefined();
  });

  it("is read from config.yaml as host.output_reserve_tokens", () => {
    expect(hostConfigFromFile({ host: { output_reserve_tokens: 2048 } })).toMatchObject({ outputReserveTokens: 2048 });
    expect(() => hostConfigFromFile({ host: { output_reserve_tokens: -1 } })).toThrow(/output_reserve_tokens/);
  });
});
