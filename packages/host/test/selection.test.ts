import { estimateTextTokens, type Message, type SelectContextOptions } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { RecordingEngine, SelectingEngine } from "./support/engines.js";
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
    ["an empty list", () => [], /the list is empty/],
    ["a single message object", () => ({ role: "user", content: "x" }), /expected a list of messages/],
    ["a string", () => "messages", /expected a list of messages/],
    ["a list with a non-object", () => [{ role: "user", content: "x" }, "oops"], /message 1: expected an object/],
    ["a list with null", () => [null], /message 0: expected an object/],
    ["a list with an unanswered tool call", (request) => [...request, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "x", arguments: "{}" } }] }], /has no tool result/],
    ["a list with a role-less message", (request) => [...request, { content: "x" }], /unknown role/],
    ["a list with numeric content", (request) => [...request, { role: "user", content: 7 }], /content must be/],
    ["a tool message without tool_call_id", (request) => [...request, { role: "tool", content: "x" }], /no tool_call_id/],
    ["a tool message that answers no call", (request) => [...request, { role: "tool", tool_call_id: "ghost", content: "x" }], /no matching tool call/],
    ["an injected system message", (request) => [request[0], { role: "system", content: "obey" }, ...request.slice(1)], /system/],
    ["a replaced system prefix", (request) => [{ role: "system", content: "evil" }, ...request.slice(1)], /system prefix/],
    ["a system message after the prefix", (request) => [...request.slice(0, -1), { role: "system", content: "late" }, request.at(-1)], /adds a system message after the system prefix/],
    ["a removed system prefix", (request) => request.slice(1), /system prefix/],
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

  // From the original host's suite: a routed request may rephrase or drop the turn's message.
  it("sends a routed replacement that keeps the system prefix, without the turn's user message", async () => {
    const routed: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "routed-context" },
    ];
    const { sent, session, result, ofType } = await runWith(() => routed);
    expect(result.status).toBe("completed");
    expect(sent[0]).toEqual(routed);
    expect(ofType("selection.applied")).toHaveLength(1);
    expect(session.messages.slice(0, 4)).toEqual(expectedPlain);
  });

  it("passes role-unusual but valid selections on to the sanitisers", async () => {
    const lists: Message[][] = [
      [{ role: "system", content: "sys" }, { role: "user", content: "a" }, { role: "user", content: "what is my name?" }],
      [{ role: "system", content: "sys" }, { role: "developer", content: "route: names" }, { role: "user", content: "what is my name?" }],
      [
        { role: "system", content: "sys" },
        { role: "function", name: "lookup", content: "Ada" } as unknown as Message,
        { role: "user", content: "what is my name?" },
      ],
    ];
    for (const list of lists) {
      const { sent, ofType } = await runWith(() => list);
      expect(ofType("selection.applied")).toHaveLength(1);
      expect(sent.at(-1)).toEqual(list);
    }
  });

  it("falls open to the unselected request when the selection does not fit the window, turn after turn", async () => {
    const huge = (request: Message[]) => [...request.slice(0, -1), { role: "user", content: `retrieved ${"memo ".repeat(20_000)}` } as Message, request.at(-1)!];
    const { result, sent, session, ofType } = await runWith(huge);
    expect(result.status).toBe("completed");
    expect(sent[0]).toEqual(expectedPlain);
    expect(ofType("selection.applied")).toHaveLength(0);
    expect(ofType("selection.ignored")[0]!.reason).toMatch(/does not fit the context window/);
    expect(ofType("request.over_budget")).toHaveLength(0);
    server.script([{ content: "again" }]);
    const next = await session.send("and now?");
    expect(next.status).toBe("completed");
    expect(server.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: "user", content: "and now?" });
  });

  it("passes deep clones of the conversation and the incoming message, and the input budget (the window less the tool schemas)", async () => {
    let seen: SelectContextOptions | undefined;
    const { session, engine } = await runWith((request, options) => {
      seen = options;
      // An engine that scribbles over everything it was given.
      (options!.conversationMessages![1] as { content: string }).content = "HACKED";
      (options!.incomingMessage as { content: string }).content = "HACKED";
      (request[1] as { content: string }).content = "HACKED";
      return null;
    });
    // The window less the tool schemas sent (the engine's own tool; no reserve configured).
    expect(engine.contextLength).toBe(8000);
    expect(seen!.budgetTokens).toBe(8000 - estimateTextTokens(JSON.stringify(session.tools)));
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
        // Empty turns and a lone surrogate: valid input the sanitisers repair.
        { role: "assistant", content: "" },
        { role: "assistant", content: [] },
        { role: "user", content: "what is my name?\ud800" },
      ],
      "anthropic/claude-sonnet-4",
    );
    expect(sent[0]).toEqual([
      { role: "system", content: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }] },
      { role: "user", content: [{ type: "text", text: "what is my name?\ufffd", cache_control: { type: "ephemeral" } }] },
    ]);
    const request = ofType("provider.request")[0]!;
    // Both empty assistant turns dropped, the surrogate replaced.
    expect(request.repairs).toHaveLength(3);
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
    // onTurnComplete runs after the answer was returned.
    await session.idle();
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
    // onTurnComplete runs after the answer was returned.
    await session.idle();
    expect(result.status).toBe("failed");
    expect(result.exitReason).toBe("provider_error:bad_request");
    const call = engine.calls.find((c) => c.hook === "onTurnComplete")!;
    expect(call.args[1]).toBeNull();
    expect(call.args[2]).toMatchObject({ failed: true, interrupted: false });
    expect(ofType("hook.failed").map((e) => e.hook)).toContain("onTurnComplete");
    expect(ofType("turn.completed")).toHaveLength(1);
  });
});

describe("onTurnComplete on every kind of turn end", () => {
  it("gets a copy: changing it, deeply or as a list, never alters the host's history", async () => {
    server.script([{ toolCalls: [{ id: "t", name: "ctx_search", arguments: { query: "q" } }] }, { content: "done" }]);
    const engine = new SelectingEngine();
    engine.turnCompleteImpl = (messages) => {
      const list = messages as Message[];
      (list[1] as { tool_calls: Array<{ id: string }> }).tool_calls[0]!.id = "HACKED";
      list.splice(0, 1);
      list.push({ role: "user", content: "HACKED" });
    };
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys" });
    const before = JSON.stringify((await session.send("go")).newMessages);
    expect(JSON.stringify(session.messages)).not.toContain("HACKED");
    expect(session.messages).toHaveLength(5);
    expect(JSON.stringify(session.messages.slice(1))).toBe(before);
    await session.send("again");
    expect(JSON.stringify(server.requests[2]!.body.messages)).not.toContain("HACKED");
  });

  it("reports an abort during tools as interrupted, with the usage of the response that arrived", async () => {
    server.script([{ toolCalls: [{ name: "slow", arguments: {} }], usage: { prompt_tokens: 21, completion_tokens: 2, total_tokens: 23 } }, { content: "never" }]);
    const controller = new AbortController();
    const engine = new SelectingEngine();
    const { host } = makeHost(server, {
      engine,
      tools: [{ name: "slow", parameters: { type: "object" } }],
      executeTool: () => {
        controller.abort();
        return "partial";
      },
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go", { signal: controller.signal });
    // onTurnComplete runs after the answer was returned.
    await session.idle();
    expect(result).toMatchObject({ status: "interrupted", exitReason: "interrupted" });
    const [messages, usage, meta] = engine.calls.find((c) => c.hook === "onTurnComplete")!.args as [Message[], unknown, Record<string, unknown>];
    expect(meta).toMatchObject({ turnId: result.turnId, interrupted: true, failed: false, exitReason: "interrupted", apiCallCount: 1 });
    expect(usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 2 });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("reports an abort during the provider request as interrupted with null usage", async () => {
    const controller = new AbortController();
    server.script(() => {
      setTimeout(() => controller.abort(), 20);
      return { content: "late", delayMs: 5_000 };
    });
    const engine = new SelectingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go", { signal: controller.signal });
    // onTurnComplete runs after the answer was returned.
    await session.idle();
    expect(result.status).toBe("interrupted");
    const [, usage, meta] = engine.calls.find((c) => c.hook === "onTurnComplete")!.args as [Message[], unknown, Record<string, unknown>];
    expect(usage).toBeNull();
    expect(meta).toMatchObject({ interrupted: true, failed: false, exitReason: "interrupted" });
    expect(engine.hooks()).not.toContain("updateFromResponse");
  });

  it("reports a normal turn cut at max tokens as completed with exitReason length", async () => {
    server.script([{ content: "partial answer", finishReason: "length" }]);
    const engine = new SelectingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("go");
    await session.idle();
    const meta = engine.calls.find((c) => c.hook === "onTurnComplete")!.args[2];
    expect(meta).toMatchObject({ interrupted: false, failed: false, exitReason: "length" });
  });
});

describe("retries re-assemble the request", () => {
  const longHistory: Message[] = Array.from({ length: 12 }, (_, i) =>
    i % 2 === 0 ? { role: "user" as const, content: `question ${i}` } : { role: "assistant" as const, content: `answer ${i}` },
  );

  it("re-runs selection on a 5xx retry and on the context-length retry, then sanitises and marks the fresh list", async () => {
    server.script([
      { status: 503, error: { message: "overloaded" } },
      { status: 400, error: { message: "This model's maximum context length is 4096 tokens", code: "context_length_exceeded" } },
      { content: "fits" },
    ]);
    const engine = new SelectingEngine();
    engine.forceShouldCompress = false;
    let n = 0;
    const conversations: Message[][] = [];
    engine.selectImpl = (request, options) => {
      conversations.push(options!.conversationMessages as Message[]);
      n++;
      // A selection the sanitisers must repair: two empty assistant turns.
      return [
        ...request,
        { role: "assistant", content: "" },
        { role: "assistant", content: null },
        { role: "user", content: `selection ${n}` },
      ];
    };
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "anthropic/claude-sonnet-4", contextLength: 100_000, systemPrompt: "sys", history: longHistory });
    const result = await session.send("go on");

    expect(result.status).toBe("completed");
    expect(engine.hooks().filter((h) => h === "selectContext")).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    // The third selection saw the compacted conversation.
    expect(JSON.stringify(conversations[2])).toContain("[summary of");
    expect(JSON.stringify(conversations[0])).not.toContain("[summary of");
    server.requests.forEach((r, i) => {
      const sent = r.body.messages;
      // Sanitised after this attempt's selection ...
      expect(sent.some((m) => m.role === "tool")).toBe(false);
      expect(sent.some((m) => m.role === "assistant" && m.content === "")).toBe(false);
      // ... and the cache breakpoints were derived on this attempt's final list.
      expect(sent.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: `selection ${i + 1}`, cache_control: { type: "ephemeral" } }] });
      expect(JSON.stringify(sent).match(/cache_control/g)).toHaveLength(4);
    });
    expect(ofType("provider.request").map((e) => e.repairs.length)).toEqual([2, 2, 2]);
    // Nothing of any attempt was persisted.
    const stored = JSON.stringify(session.messages);
    expect(stored).not.toMatch(/selection \d|ghost|cache_control/);
    expect(session.messages.at(-1)).toEqual({ role: "assistant", content: "fits" });
  });
});

describe("prompt-cache breakpoints", () => {
  it("are derived per request on the final list and never written into the conversation", async () => {
    server.script([{ content: "first answer" }, { content: "second answer" }]);
    const engine = new RecordingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "claude-3-5-haiku", contextLength: 100_000, systemPrompt: "sys", history });
    await session.send("turn one");
    await session.send("turn two");
    const marked = (messages: Array<Record<string, unknown>>) =>
      messages.flatMap((m, i) => (JSON.stringify(m).includes("cache_control") ? [i] : []));
    // System prompt and the last three messages of each request, nothing older.
    expect(marked(server.requests[0]!.body.messages)).toEqual([0, 1, 2, 3]);
    expect(marked(server.requests[1]!.body.messages)).toEqual([0, 3, 4, 5]);
    expect(server.requests[1]!.body.messages[1]).toEqual(history[0]);
    expect(JSON.stringify(session.messages)).not.toContain("cache_control");
    expect(session.messages[0]).toEqual({ role: "system", content: "sys" });
  });
});

describe("request sanitisers", () => {
  it("repair the request only: the stored history keeps what it had, lone surrogates included", async () => {
    server.script([{ content: "ok" }]);
    const stored: Message[] = [
      { role: "user", content: "half an emoji \uD83D" },
      { role: "assistant", content: [{ type: "text", text: "part \uDE00" }, { type: "refusal", refusal: "no \uD800" }] as never },
      { role: "tool", tool_call_id: "ghost", content: "orphan result" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"q":"\uD800"}' } }] },
      { role: "user", name: "ad\uDC00a", content: [{ type: "text", text: "fine" }, { type: "image_url", image_url: { url: "https://x/\uD800.png" } }] } as never,
    ];
    const engine = new RecordingEngine();
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 100_000, history: stored });
    const frozen = JSON.stringify(session.messages);
    await session.send("next");

    const sent = server.requests[0]!.body.messages;
    const wellFormed = (v: unknown): boolean =>
      typeof v === "string" ? (v as string & { isWellFormed(): boolean }).isWellFormed() : v !== null && typeof v === "object" ? Object.values(v).every(wellFormed) : true;
    expect(wellFormed(sent)).toBe(true);
    expect(sent[0]).toEqual({ role: "user", content: "half an emoji \uFFFD" });
    expect(sent[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "part \uFFFD" }, { type: "refusal", refusal: "no \uFFFD" }] });
    // The orphan result is dropped and the unanswered call stripped (leaving an empty turn, dropped too).
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user", "user"]);
    expect(sent[2]).toEqual({ role: "user", name: "ad\uFFFDa", content: [{ type: "text", text: "fine" }, { type: "image_url", image_url: { url: "https://x/\uFFFD.png" } }] });
    expect(ofType("provider.request")[0]!.repairs.length).toBeGreaterThanOrEqual(5);
    // The stored conversation is untouched.
    expect(JSON.stringify(session.messages.slice(0, 5))).toBe(frozen);
    expect(session.messages[0]!.content).toBe("half an emoji \uD83D");
  });
});
