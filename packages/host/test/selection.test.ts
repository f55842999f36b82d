import type { Message, SelectContextOptions } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

const history: Message[] = [
  { role: "user", content: "my name is Ada" },
  { role: "assistant", content: "Hi Ada" },
];

async function runWith(selectImpl: SelectingEngine["selectImpl"], model = "test-model") {
  server.script([{ content: "answer" }]);
  const engine = new SelectingEngine();
  engine.selectImpl = selectImpl;
  const ctx = makeHost(server, { engine });
  const session = await ctx.host.openSession({ model, contextLength: 8000, systemPrompt: "sys", history });
  const result = await session.send("what is my name?");
  return { ...ctx, engine, session, result, sent: server.requests.map((r) => r.body.messages) };
}

const expectedPlain = [
  { role: "system", content: "sys" },
  ...history,
  { role: "user", content: "what is my name?" },
];

describe("selectContext fail-open", () => {
  const bad: Array<[string, SelectingEngine["selectImpl"], RegExp]> = [
    ["null", () => null, /no-op/],
    ["undefined", () => undefined, /no-op/],
    ["an empty list", () => [], /empty list/],
    ["a single message object", () => ({ role: "user", content: "x" }), /not a list/],
    ["a string", () => "messages", /not a list/],
    ["a list with a non-object", () => [{ role: "user", content: "x" }, "oops"], /item 1/],
    ["a list with null", () => [null], /item 0/],
    ["a throw", () => {
      throw new Error("engine exploded");
    }, /threw: engine exploded/],
    ["a rejected promise", () => Promise.reject(new Error("async boom")), /threw: async boom/],
  ];
  for (const [label, impl, reason] of bad) {
    it(`sends the unmodified request when the hook returns ${label}`, async () => {
      const { result, sent, ofType } = await runWith(impl);
      expect(result.status).toBe("completed");
      expect(sent[0]).toEqual(expectedPlain);
      const [ignored] = ofType("selection.ignored");
      expect(ignored!.reason).toMatch(reason);
      expect(ofType("provider.request")[0]!.selection).toBe("ignored");
    });
  }

  it("reports a throwing or invalid hook as hook.failed, but not the documented null", async () => {
    expect((await runWith(() => null)).ofType("hook.failed")).toHaveLength(0);
    expect((await runWith(() => [])).ofType("hook.failed")).toHaveLength(1);
  });
});

describe("selectContext applied", () => {
  it("sends the selected list for this request only, never persisting it", async () => {
    const selected: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "what is my name?" },
    ];
    const { sent, session, ofType } = await runWith(() => selected);
    expect(sent[0]).toEqual(selected);
    expect(session.messages.slice(0, 4)).toEqual(expectedPlain);
    expect(ofType("selection.applied")[0]).toMatchObject({ messagesBefore: 4, messagesAfter: 2 });
    expect(ofType("provider.request")[0]!.messages).toEqual(selected);
  });

  it("passes deep clones of the conversation and the incoming message, and the engine's window as budget", async () => {
    let seen: SelectContextOptions | undefined;
    const { session, engine } = await runWith((request, options) => {
      seen = options;
      // An engine that scribbles over everything it was given.
      (options!.conversationMessages![1] as { content: string }).content = "HACKED";
      (options!.incomingMessage as { content: string }).content = "HACKED";
      (request[1] as { content: string }).content = "HACKED";
      return null;
    });
    expect(seen!.budgetTokens).toBe(engine.contextLength);
    expect(seen!.budgetTokens).toBe(8000);
    expect(seen!.sessionId).toBe(session.id);
    expect(JSON.stringify(session.messages)).not.toContain("HACKED");
    expect(server.requests[0]!.body.messages).toEqual(expectedPlain);
  });

  it("is re-run on every retry", async () => {
    server.script([{ status: 503, error: { message: "busy" } }, { content: "ok" }]);
    const engine = new SelectingEngine();
    let n = 0;
    engine.selectImpl = (request) => [...request, { role: "user", content: `selection ${++n}` }];
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go");
    expect(result.status).toBe("completed");
    expect(engine.hooks().filter((h) => h === "selectContext")).toHaveLength(2);
    expect(server.requests.map((r) => r.body.messages.at(-1)!.content)).toEqual(["selection 1", "selection 2"]);
  });

  it("runs before the sanitisers and cache breakpoints, which apply to the selected list", async () => {
    const { sent, ofType } = await runWith(
      () => [
        { role: "system", content: "sys" },
        { role: "tool", tool_call_id: "ghost", content: "orphan result" },
        { role: "assistant", content: "" },
        { role: "user", content: "what is my name?" },
      ],
      "anthropic/claude-sonnet-4",
    );
    expect(sent[0]).toEqual([
      { role: "system", content: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }] },
      { role: "user", content: [{ type: "text", text: "what is my name?", cache_control: { type: "ephemeral" } }] },
    ]);
    const request = ofType("provider.request")[0]!;
    expect(request.repairs).toHaveLength(2);
    expect(request.cacheBreakpoints).toBe(2);
  });
});

describe("onTurnComplete", () => {
  it("gets deep copies, the last usage and the turn meta", async () => {
    server.script([{ content: "done", usage: { prompt_tokens: 42, completion_tokens: 3, total_tokens: 45 } }]);
    const engine = new SelectingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    engine.turnCompleteImpl = (messages) => {
      (messages[0] as { content: string }).content = "HACKED";
    };
    const result = await session.send("hello");
    const call = engine.calls.find((c) => c.hook === "onTurnComplete")!;
    const [messages, usage, meta] = call.args as [Message[], unknown, Record<string, unknown>];
    expect(messages).not.toBe(session.messages);
    expect(messages).toHaveLength(2);
    expect(session.messages[0]!.content).toBe("hello");
    expect(usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 3, total_tokens: 45 });
    expect(meta).toMatchObject({ turnId: result.turnId, sessionId: session.id, interrupted: false, failed: false, exitReason: "completed", apiCallCount: 1 });
  });

  it("gets null usage and failed=true when no response arrived; its throw never breaks the turn", async () => {
    server.script(() => ({ status: 400, error: { message: "bad" } }));
    const engine = new SelectingEngine();
    engine.turnCompleteImpl = () => {
      throw new Error("observer crashed");
    };
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("hello");
    expect(result.status).toBe("failed");
    expect(result.exitReason).toBe("provider_error:bad_request");
    const call = engine.calls.find((c) => c.hook === "onTurnComplete")!;
    expect(call.args[1]).toBeNull();
    expect(call.args[2]).toMatchObject({ failed: true, interrupted: false });
    expect(ofType("hook.failed").map((e) => e.hook)).toContain("onTurnComplete");
    expect(ofType("turn.completed")).toHaveLength(1);
  });
});
