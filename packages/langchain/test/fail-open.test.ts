import { describe, expect, it } from "vitest";
import { createAgent, HumanMessage } from "langchain";
import type { BaseMessage } from "@langchain/core/messages";
import { ContextEngine } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { contextEngineMiddleware, toOpenAIMessages } from "../src/index.js";
import type { AdapterEvent } from "../src/index.js";
import { answer, fakeModel, toolCallAnswer } from "./helpers.js";

const never = () => new Promise<never>(() => {});
const timeouts = { compressMs: 150, selectMs: 150, hookMs: 150 };

/** An engine where every hook does `behave(hook)`: throw, hang or return garbage. */
function badEngine(behave: (hook: string) => unknown): ContextEngine {
  return new (class extends ContextEngine {
    get name() {
      return "bad";
    }
    updateFromResponse() {
      behave("updateFromResponse");
    }
    shouldCompress() {
      return behave("shouldCompress") as boolean;
    }
    compress() {
      return behave("compress") as Message[];
    }
    override selectContext() {
      return behave("selectContext") as Message[];
    }
    override onSessionStart() {
      return behave("onSessionStart") as void;
    }
    override updateModel() {
      return behave("updateModel") as void;
    }
    override shouldCompressPreflight() {
      return behave("shouldCompressPreflight") as boolean;
    }
    override onTurnComplete() {
      return behave("onTurnComplete") as void;
    }
    override getToolSchemas() {
      return [{ name: "bad_tool", description: "misbehaves", parameters: { type: "object" as const, properties: {} } }];
    }
    override handleToolCall() {
      return behave("handleToolCall") as string;
    }
  })();
}

const history = () => [
  new HumanMessage("first question"),
];

/** Run a two-step loop (a tool call, then an answer) and return what the model saw each step. */
async function run(engine: ContextEngine, events: AdapterEvent[]) {
  const model = fakeModel()
    .respond(toolCallAnswer([{ id: "c1", name: "bad_tool", args: {} }]))
    .respond(answer("final"));
  const agent = createAgent({
    model,
    systemPrompt: "sys",
    middleware: [contextEngineMiddleware({ engine, contextLength: 1_000, timeouts, onEvent: (e) => events.push(e) })],
  });
  const out = await agent.invoke({ messages: history() });
  return { out, seen: model.calls.map((c) => toOpenAIMessages(c.messages as BaseMessage[])) };
}

const garbage: Array<[string, unknown]> = [
  ["a string", "not a list"],
  ["an empty list", []],
  ["non-objects", [1, 2, 3]],
  ["an unknown role", [{ role: "wizard", content: "hi" }]],
  ["an orphan tool result", [{ role: "tool", tool_call_id: "nope", content: "x" }, { role: "user", content: "q" }]],
  ["a call without its result", [{ role: "assistant", content: "", tool_calls: [{ id: "zz", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "user", content: "q" }]],
];

describe("a misbehaving engine never breaks the agent loop", () => {
  it("baseline: what an inert engine lets through", async () => {
    const { out, seen } = await run(badEngine(() => undefined), []);
    expect(out.messages.at(-1)?.content).toBe("final");
    expect(seen[0]!.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("every hook throwing: unmodified requests, the tool answers with an error string", async () => {
    const events: AdapterEvent[] = [];
    const { out, seen } = await run(
      badEngine((hook) => {
        throw new Error(`boom in ${hook}`);
      }),
      events,
    );
    expect(out.messages.at(-1)?.content).toBe("final");
    expect(seen[1]!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    const toolResult = out.messages.find((m) => m.type === "tool");
    expect(JSON.parse(String(toolResult?.content))).toEqual({ error: "bad_tool failed: boom in handleToolCall" });
    const failed = new Set(events.filter((e) => e.type === "hook.failed").map((e) => (e as { hook: string }).hook));
    expect([...failed].sort()).toEqual(["onSessionStart", "onTurnComplete", "shouldCompress", "shouldCompressPreflight", "updateFromResponse", "updateModel"]);
    expect(events.some((e) => e.type === "selection.ignored" && e.failed)).toBe(true);
  });

  it("every hook hanging: each is bounded by its timeout", async () => {
    const events: AdapterEvent[] = [];
    const engine = badEngine((hook) => (hook === "shouldCompress" ? true : hook === "updateFromResponse" ? undefined : never()));
    const { out, seen } = await run(engine, events);
    expect(out.messages.at(-1)?.content).toBe("final");
    expect(seen[0]!.map((m) => m.content)).toEqual([[{ type: "text", text: "sys" }], "first question"]);
    expect(events.filter((e) => e.type === "compaction.failed").every((e) => (e as { timedOut: boolean }).timedOut)).toBe(true);
    expect(events.filter((e) => e.type === "compaction.failed")).toHaveLength(2);
    expect(JSON.parse(String(out.messages.find((m) => m.type === "tool")?.content)).error).toMatch(/no answer within 150 ms/);
  });

  it.each(garbage)("selectContext and compress returning %s: unmodified request and history", async (_label, value) => {
    const events: AdapterEvent[] = [];
    const engine = badEngine((hook) => (hook === "shouldCompress" ? true : hook === "compress" || hook === "selectContext" ? value : undefined));
    const { out, seen } = await run(engine, events);
    expect(out.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(seen[1]!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(events.filter((e) => e.type === "compaction.committed" || e.type === "selection.applied")).toEqual([]);
  });

  it("garbage tool results and tool schemas are contained", async () => {
    const events: AdapterEvent[] = [];
    const engine = badEngine((hook) => (hook === "handleToolCall" ? { not: "a string" } : undefined));
    (engine as unknown as { getToolSchemas: () => unknown }).getToolSchemas = () => [
      { name: "bad_tool", parameters: { type: "object" } },
      { name: "has spaces!", parameters: { type: "object" } },
      "junk",
    ];
    const { out } = await run(engine, events);
    expect(JSON.parse(String(out.messages.find((m) => m.type === "tool")?.content)).error).toBe("bad_tool returned no text");
    expect(events.filter((e) => e.type === "hook.failed" && e.hook === "getToolSchemas")).toHaveLength(2);
  });
});
