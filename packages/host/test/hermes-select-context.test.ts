// Hermes Agent's tests/agent/test_context_engine_select_context.py, translated to our host (behaviour,
// not code). The original calls the host's helper functions directly with a mocked agent; here each
// test drives a real session against the fake OpenAI server and reads what was sent and emitted.
// Differences by design:
// - "no engine at all" has no equivalent: a session always has an engine (the compressor by default);
//   the nearest case, the built-in compressor, is tested instead.
// - the identity short-circuit is our DEFAULT_HOOK mark (it survives duplicate copies of core), so the
//   patched base method in that test carries the mark as the base's own default does.
// - a rejected selection is reported as a `selection.ignored` event (and `hook.failed` for a throw or an
//   invalid list) rather than only a log line; a `null` return is silent in both.
// - onTurnComplete runs after the answer is returned: tests await `session.idle()` before reading it.
import { ContextCompressor } from "@context-engine/compressor";
import { ContextEngine, markDefaultHook, type Logger, type Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { RecordingEngine, SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();
const REQUEST: Message[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "hello" },
];

function warnings(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (m: string) => void lines.push(m);
  return { lines, debug() {}, info() {}, warn: keep, error: keep };
}

/** One turn "hello" on a session with system prompt "sys", with `engine`; what was sent and emitted. */
async function turn(engine: ContextEngine) {
  server.script([{ content: "answer", usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } }]);
  const logger = warnings();
  const ctx = makeHost(server, { engine, logger });
  const session = await ctx.host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys" });
  const result = await session.send("hello");
  await session.idle();
  return { ...ctx, session, result, logger, sent: server.requests[0]!.body.messages as Message[] };
}

const selecting = (impl: SelectingEngine["selectImpl"]) => {
  const engine = new SelectingEngine();
  engine.selectImpl = impl;
  return engine;
};

describe("selectContext (Hermes test_context_engine_select_context.py)", () => {
  it("the base default is a no-op", async () => {
    expect(await new RecordingEngine().selectContext(REQUEST, { conversationMessages: [REQUEST[1]!], incomingMessage: REQUEST[1]!, budgetTokens: 100 })).toBeNull();
  });

  it("a null return leaves the request unchanged", async () => {
    const { sent, ofType } = await turn(selecting(() => null));
    expect(sent).toEqual(REQUEST);
    expect(ofType("provider.request")[0]!.selection).toBe("ignored");
    expect(ofType("hook.failed")).toHaveLength(0);
  });

  it("the inherited default is skipped by identity, never called", async () => {
    const original = ContextEngine.prototype.selectContext;
    ContextEngine.prototype.selectContext = markDefaultHook(() => {
      throw new Error("the inherited default must not be called");
    });
    try {
      const { sent, ofType, logger } = await turn(new RecordingEngine());
      expect(sent).toEqual(REQUEST);
      expect(ofType("provider.request")[0]!.selection).toBe("not_implemented");
      expect(ofType("hook.failed")).toHaveLength(0);
      expect(logger.lines.filter((l) => /selectContext/.test(l))).toEqual([]);
    } finally {
      ContextEngine.prototype.selectContext = original;
    }
  });

  it("the built-in compressor inherits the base selectContext and onTurnComplete", async () => {
    expect(Object.prototype.hasOwnProperty.call(ContextCompressor.prototype, "selectContext")).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(ContextCompressor.prototype, "onTurnComplete")).toBe(false);
    const { sent, ofType } = await turn(new ContextCompressor({ contextLength: 8000, model: "test-model" }));
    expect(sent).toEqual(REQUEST);
    expect(ofType("provider.request")[0]!.selection).toBe("not_implemented");
  });

  it("an engine without the hook at all (not a function) leaves the request unchanged", async () => {
    const engine = new RecordingEngine();
    (engine as unknown as { selectContext: unknown }).selectContext = undefined;
    const { sent, result } = await turn(engine);
    expect(result.status).toBe("completed");
    expect(sent).toEqual(REQUEST);
  });

  it("a valid list replaces the request", async () => {
    const replacement: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "routed hello" },
    ];
    const { sent, ofType } = await turn(selecting(() => replacement));
    expect(sent).toEqual(replacement);
    expect(ofType("provider.request")[0]!.selection).toBe("applied");
  });

  const failOpen: Array<[string, SelectingEngine["selectImpl"]]> = [
    ["a throw", () => {
      throw new Error("boom");
    }],
    ["a single object instead of a list", () => ({ role: "user", content: "x" })],
    ["a list of non-objects", () => ["not", "dicts"]],
    ["an empty list", () => []],
  ];
  for (const [label, impl] of failOpen) {
    it(`${label} fails open to the unmodified request, with a warning`, async () => {
      const { sent, ofType, result } = await turn(selecting(impl));
      expect(result.status).toBe("completed");
      expect(sent).toEqual(REQUEST);
      expect(ofType("selection.ignored")).toHaveLength(1);
    });
  }

  it("an engine that mutates its inputs cannot change the persisted history or the incoming message", async () => {
    const { session } = await turn(
      selecting((request, options) => {
        options?.conversationMessages?.push({ role: "user", content: "INJECTED" });
        if (options?.conversationMessages?.[0]) (options.conversationMessages[0] as { content: string }).content = "TAMPERED";
        if (options?.incomingMessage) (options.incomingMessage as { content: string }).content = "TAMPERED";
        return null;
      }),
    );
    expect(session.messages.map((m) => m.content)).toEqual(["sys", "hello", "answer"]);
  });

  it("the persisted history equals its snapshot after the call", async () => {
    const { session } = await turn(selecting(() => [{ role: "system", content: "sys" }, { role: "user", content: "other" }]));
    expect(session.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "hello" },
      { role: "assistant", content: "answer" },
    ]);
  });

  it("a no-op leaves the request byte-stable (prompt cache)", async () => {
    const { sent } = await turn(selecting(() => null));
    expect(JSON.stringify(sent)).toBe(JSON.stringify(REQUEST));
  });

  it("a role-unusual but valid replacement goes on to the sanitisers", async () => {
    const unusual: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "one" },
      { role: "user", content: "two" },
    ];
    const { ofType, result } = await turn(selecting(() => unusual));
    expect(result.status).toBe("completed");
    expect(ofType("provider.request")[0]!.selection).toBe("applied");
    // The sanitisers merge the adjacent user messages; both texts are sent.
    expect(JSON.stringify(server.requests[0]!.body.messages)).toMatch(/one[\s\S]*two/);
  });
});

describe("onTurnComplete (Hermes test_context_engine_select_context.py)", () => {
  it("the base default is a no-op", async () => {
    expect(await new RecordingEngine().onTurnComplete([], null, {})).toBeUndefined();
  });

  it("is called with a copy of the transcript, the usage and the turn meta (after session.idle())", async () => {
    const engine = new SelectingEngine();
    const { session, result } = await turn(engine);
    const call = engine.calls.find((c) => c.hook === "onTurnComplete")!;
    const [messages, usage, meta] = call.args as [Message[], unknown, Record<string, unknown>];
    expect(messages).toEqual(session.messages);
    expect(messages).not.toBe(session.messages);
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 });
    expect(meta).toMatchObject({ turnId: result.turnId, apiCallCount: 1 });
  });

  it("the inherited default is skipped and never breaks a turn", async () => {
    const { result, ofType } = await turn(new RecordingEngine());
    expect(result.status).toBe("completed");
    expect(ofType("hook.failed")).toHaveLength(0);
  });

  it("a throwing hook fails open, with a warning", async () => {
    const engine = new SelectingEngine();
    engine.turnCompleteImpl = () => {
      throw new Error("observer crashed");
    };
    const { result, ofType, logger } = await turn(engine);
    expect(result.status).toBe("completed");
    expect(ofType("hook.failed").map((e) => e.hook)).toContain("onTurnComplete");
    expect(logger.lines.some((l) => /onTurnComplete/.test(l))).toBe(true);
  });
});
