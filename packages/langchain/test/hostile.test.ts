import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, HumanMessage, tool } from "langchain";
import type { BaseMessage } from "@langchain/core/messages";
import { ContextEngine } from "@context-engine/core";
import type { Message, ToolSchema } from "@context-engine/core";
import { ContextCompressor } from "@context-engine/compressor";
import { contextEngineMiddleware, toOpenAIMessages } from "../src/index.js";
import type { AdapterEvent } from "../src/index.js";
import { answer, fakeModel, toolCallAnswer } from "./helpers.js";

/** Values a hostile engine hands back from `compress` and `selectContext`. */
const hostile: Array<[string, () => unknown]> = [
  [
    "a message whose getter throws",
    () => {
      const message = { role: "user" };
      Object.defineProperty(message, "content", { enumerable: true, get: () => { throw new Error("getter trap"); } });
      return [message];
    },
  ],
  ["a Proxy whose traps throw", () => new Proxy([{ role: "user", content: "hi" }], { get: () => { throw new Error("proxy trap"); }, ownKeys: () => { throw new Error("proxy trap"); } })],
  ["an image part with a javascript: URL", () => [{ role: "user", content: [{ type: "image_url", image_url: { url: "javascript:alert(1)" } }] }]],
  ["an image part with a file: URL", () => [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] }]],
  [
    "a cyclic message",
    () => {
      const message: Record<string, unknown> = { role: "user", content: "loop" };
      message.self = message;
      return [message];
    },
  ],
];

class HostileEngine extends ContextEngine {
  constructor(readonly value: () => unknown) {
    super();
  }
  get name() {
    return "hostile";
  }
  updateFromResponse() {}
  shouldCompress() {
    return true;
  }
  compress() {
    return this.value() as Message[];
  }
  override selectContext() {
    return this.value() as Message[];
  }
}

/** Every hook throws, like an engine whose store cannot open. */
class StorelessEngine extends ContextEngine {
  get name() {
    return "storeless";
  }
  #broken(): never {
    throw new Error("cannot open the store: /nowhere/lcm.db is a directory");
  }
  override onSessionStart() {
    this.#broken();
  }
  updateFromResponse() {
    this.#broken();
  }
  shouldCompress(): boolean {
    return this.#broken();
  }
  compress(): Message[] {
    return this.#broken();
  }
  override onTurnComplete() {
    this.#broken();
  }
}

const noop = tool(async () => "done", { name: "noop", description: "does nothing", schema: { type: "object", properties: {} } });

async function run(engine: ContextEngine, events: AdapterEvent[], extra: { fallback?: ContextEngine; history?: BaseMessage[] } = {}) {
  const model = fakeModel().respond(toolCallAnswer([{ id: "c1", name: "noop", args: {} }])).respond(answer("final"));
  const agent = createAgent({
    model,
    systemPrompt: "sys",
    tools: [noop],
    middleware: [contextEngineMiddleware({ engine, contextLength: 4_000, onEvent: (e) => events.push(e), ...(extra.fallback ? { fallback: extra.fallback } : {}) })],
  });
  const out = await agent.invoke({ messages: extra.history ?? [new HumanMessage("first question")] });
  return { out, seen: model.calls.map((c) => toOpenAIMessages(c.messages as BaseMessage[])) };
}

describe("hostile engine results never reach the agent", () => {
  it.each(hostile)("compress and selectContext returning %s: original messages and a failure event", async (_label, value) => {
    const events: AdapterEvent[] = [];
    const { out, seen } = await run(new HostileEngine(value), events);
    expect(out.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(seen[0]!.map((m) => m.content)).toEqual([[{ type: "text", text: "sys" }], "first question"]);
    expect(events.some((e) => e.type === "compaction.failed")).toBe(true);
    expect(events.some((e) => e.type === "selection.ignored" && e.failed)).toBe(true);
    expect(events.filter((e) => e.type === "compaction.committed" || e.type === "selection.applied")).toEqual([]);
  });

  it("a cyclic tool schema is skipped with a failure event; the agent still builds and runs", async () => {
    const engine = new (class extends HostileEngine {
      override shouldCompress() {
        return false;
      }
      override selectContext() {
        return null as unknown as Message[];
      }
      override getToolSchemas(): ToolSchema[] {
        const parameters: Record<string, unknown> = { type: "object", properties: {} };
        (parameters.properties as Record<string, unknown>).again = parameters;
        return [{ name: "loop_tool", description: "cyclic", parameters: parameters as ToolSchema["parameters"] }];
      }
    })(() => []);
    const events: AdapterEvent[] = [];
    const { out } = await run(engine, events);
    expect(out.messages.at(-1)?.content).toBe("final");
    expect(events).toContainEqual(expect.objectContaining({ type: "hook.failed", hook: "getToolSchemas" }));
  });
});

describe("a broken engine is loud and falls back", () => {
  it("hooks that throw are each reported; the model gets the request as the agent built it", async () => {
    const events: AdapterEvent[] = [];
    const { out, seen } = await run(new StorelessEngine(), events);
    expect(out.messages.at(-1)?.content).toBe("final");
    expect(seen[1]!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    const failed = new Set(events.flatMap((e) => (e.type === "hook.failed" ? [e.hook] : [])));
    for (const hook of ["onSessionStart", "shouldCompress", "updateFromResponse", "onTurnComplete"]) expect(failed).toContain(hook);
  });

  it("with a fallback, the compressor compacts the history the broken engine could not", async () => {
    const events: AdapterEvent[] = [];
    const fallback = new ContextCompressor({ contextLength: 4_000, config: { threshold: 0.3, protect_last_n: 2, protect_first_n: 1 } });
    // Over the compressor's threshold before the first call, by its own estimate (no usage seen yet).
    fallback.lastPromptTokens = 3_500;
    const long = (i: number) => `note ${i}: ` + "a line of earlier discussion that fills the context window. ".repeat(30);
    const history: BaseMessage[] = [];
    for (let i = 0; i < 8; i++) history.push(new HumanMessage(long(i)), answer(`ok ${i}`));
    history.push(new HumanMessage("and now?"));
    const { out, seen } = await run(new StorelessEngine(), events, { fallback, history });
    expect(out.messages.at(-1)?.content).toBe("final");
    expect(events).toContainEqual(expect.objectContaining({ type: "fallback", engine: fallback.name }));
    expect(events).toContainEqual(expect.objectContaining({ type: "compaction.committed" }));
    expect(JSON.stringify(seen[0]).length).toBeLessThan(JSON.stringify(toOpenAIMessages(history)).length);
  });

  it("LCM pointed at a database path it cannot open is reported, not silent", async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), "langchain-lcm-broken-"));
    try {
      const path = join(dir, "lcm.db");
      mkdirSync(path); // a directory where the database file should be
      const { LcmEngine } = await import("@context-engine/lcm");
      const events: AdapterEvent[] = [];
      const { out } = await run(new LcmEngine({ config: { database_path: path }, contextLength: 4_000 }), events);
      expect(out.messages.at(-1)?.content).toBe("final");
      const failures = events.filter((e) => e.type === "hook.failed" || e.type === "compaction.failed");
      // LCM reporting its store at the first hook is the lead's part of issue 28; until it lands LCM stays silent.
      if (failures.length === 0) ctx.skip("LCM does not report an unopenable store yet");
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
