import type { Message } from "@context-engine/core";
import { ContextCompressor } from "@context-engine/compressor";
import { describe, expect, it } from "vitest";
import {
  AgentHost,
  applyCacheBreakpoints,
  hostConfigFromFile,
  parseSlashCommand,
  promptCacheEnabled,
  sanitizeRequestMessages,
} from "../src/index.js";

const call = (id: string, name = "f") => ({ id, type: "function" as const, function: { name, arguments: "{}" } });

describe("sanitizeRequestMessages", () => {
  it("returns the very same list when nothing needs repair", () => {
    const messages: Message[] = [
      { role: "system", content: "s" },
      { role: "user", content: "u 😀" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "ra" },
      { role: "tool", tool_call_id: "b", content: "rb" },
      { role: "assistant", content: "done" },
    ];
    const result = sanitizeRequestMessages(messages);
    expect(result.messages).toBe(messages);
    expect(result.repairs).toEqual([]);
  });

  it("drops orphan results, strips unanswered calls and drops empty turns, without touching the input", () => {
    const messages: Message[] = [
      { role: "user", content: "u" },
      { role: "tool", tool_call_id: "ghost", content: "orphan" },
      { role: "assistant", content: "thinking", tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "ra" },
      { role: "tool", tool_call_id: "a", content: "duplicate" },
      { role: "tool", tool_call_id: "zzz", content: "wrong id" },
      { role: "assistant", content: null, tool_calls: [call("c")] },
      { role: "user", content: "next" },
      { role: "assistant", content: "" },
      { role: "user", content: "last" },
    ];
    const frozen = JSON.stringify(messages);
    const result = sanitizeRequestMessages(messages);
    expect(result.messages).toEqual([
      { role: "user", content: "u" },
      { role: "assistant", content: "thinking", tool_calls: [call("a")] },
      { role: "tool", tool_call_id: "a", content: "ra" },
      { role: "user", content: "next" },
      { role: "user", content: "last" },
    ]);
    expect(result.repairs).toHaveLength(7);
    expect(JSON.stringify(messages)).toBe(frozen);
  });

  it("replaces lone surrogates in content, text parts and tool arguments", () => {
    const lone = "bad \uD83D end";
    const messages: Message[] = [
      { role: "user", content: lone },
      { role: "user", content: [{ type: "text", text: "x\uDE00" }] },
      { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: `{"q":"${"\uD800"}"}` } }] },
      { role: "tool", tool_call_id: "a", content: "ok" },
    ];
    const result = sanitizeRequestMessages(messages);
    expect(result.messages[0]!.content).toBe("bad \uFFFD end");
    expect(result.messages[1]!.content).toEqual([{ type: "text", text: "x\uFFFD" }]);
    expect((result.messages[2] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0]!.function.arguments).toBe('{"q":"\uFFFD"}');
    expect(result.messages[3]).toBe(messages[3]);
    expect(messages[0]!.content).toBe(lone);
    // The fixed request serialises as valid UTF-8.
    expect(Buffer.from(JSON.stringify(result.messages), "utf8").toString("utf8")).not.toContain("\uD83D");
  });
});

describe("lone surrogates anywhere in a message", () => {
  it("are found and replaced in every field, copying only what they touch", () => {
    const clean = { type: "image_url", image_url: { url: "https://x/a.png" } };
    const message = {
      role: "user",
      name: "n\uD800",
      content: [{ type: "text", text: "ok" }, clean, { type: "refusal", refusal: "r\uDFFF" }],
      extra: { nested: ["\uD83D"] },
    } as unknown as Message;
    const result = sanitizeRequestMessages([message]);
    const fixed = result.messages[0] as unknown as typeof message & Record<string, unknown>;
    expect(fixed).toEqual({
      role: "user",
      name: "n\uFFFD",
      content: [{ type: "text", text: "ok" }, clean, { type: "refusal", refusal: "r\uFFFD" }],
      extra: { nested: ["\uFFFD"] },
    });
    expect((fixed.content as unknown[])[1]).toBe(clean);
    expect((message as unknown as { name: string }).name).toBe("n\uD800");
    expect(result.repairs).toEqual(["replaced lone surrogates in message 0"]);
    // A well-formed pair is not a lone surrogate.
    const pair = [{ role: "user", content: [{ type: "text", text: "\uD83D\uDE00" }] }] as Message[];
    expect(sanitizeRequestMessages(pair).messages).toBe(pair);
  });
});

describe("cache breakpoints", () => {
  it("mark the system prompt and the last three other messages, copying only those", () => {
    const messages: Message[] = [
      { role: "system", content: "s" },
      { role: "user", content: "1" },
      { role: "assistant", content: null, tool_calls: [call("a")] },
      { role: "tool", tool_call_id: "a", content: "r" },
      { role: "user", content: [{ type: "text", text: "q" }] },
    ];
    const { messages: out, count } = applyCacheBreakpoints(messages);
    expect(count).toBe(4);
    expect(out[0]).toEqual({ role: "system", content: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }] });
    expect(out[1]).toBe(messages[1]);
    expect(out[2]).toMatchObject({ cache_control: { type: "ephemeral" } });
    expect(out[4]!.content).toEqual([{ type: "text", text: "q", cache_control: { type: "ephemeral" } }]);
    expect(messages[0]!.content).toBe("s");
  });

  it("are on for Claude models in auto mode only", () => {
    expect(promptCacheEnabled("auto", "anthropic/claude-sonnet-4")).toBe(true);
    expect(promptCacheEnabled("auto", "gpt-4o-mini")).toBe(false);
    expect(promptCacheEnabled("on", "gpt-4o-mini")).toBe(true);
    expect(promptCacheEnabled("off", "claude-3-haiku")).toBe(false);
  });
});

describe("slash commands", () => {
  it("parses the commands the CLI offers", () => {
    expect(parseSlashCommand("/compress")).toEqual({ name: "compress", focus: null });
    expect(parseSlashCommand("/compress  the auth module ")).toEqual({ name: "compress", focus: "the auth module" });
    expect(parseSlashCommand("/new")).toEqual({ name: "new" });
    expect(parseSlashCommand("/RESET")).toEqual({ name: "reset" });
    expect(parseSlashCommand("/model gpt-4o")).toEqual({ name: "model", model: "gpt-4o", contextLength: null });
    expect(parseSlashCommand("/model gpt-4o 128000")).toEqual({ name: "model", model: "gpt-4o", contextLength: 128_000 });
    expect(parseSlashCommand("/model")).toMatchObject({ name: "invalid" });
    expect(parseSlashCommand("/model x -3")).toMatchObject({ name: "invalid" });
    expect(parseSlashCommand("/status")).toEqual({ name: "status" });
    expect(parseSlashCommand("/engine")).toEqual({ name: "engine" });
    expect(parseSlashCommand("/frobnicate")).toEqual({ name: "unknown", command: "/frobnicate" });
    expect(parseSlashCommand("hello")).toBeNull();
    expect(parseSlashCommand("//not a command")).toBeNull();
  });
});

describe("host configuration", () => {
  it("reads the host settings from a config.yaml object", () => {
    expect(hostConfigFromFile({ compression: { context_timeout_seconds: 30, model_thresholds: { "gpt-4o": "0.6" } }, host: { max_iterations: 10 } })).toEqual({
      contextTimeoutSeconds: 30,
      modelThresholds: { "gpt-4o": 0.6 },
      maxIterations: 10,
    });
    expect(() => hostConfigFromFile({ compression: { context_timeout_seconds: "soon" } })).toThrow(/compression\.context_timeout_seconds/);
  });

  it("takes the compressor's context_timeout_seconds when the host sets none", () => {
    const engine = new ContextCompressor({ config: { context_timeout_seconds: 7 } });
    const chatModel = { complete: async () => ({ message: { role: "assistant" as const, content: "x" } }) };
    expect(new AgentHost({ engine, chatModel }).config.contextTimeoutSeconds).toBe(7);
    expect(new AgentHost({ engine, chatModel, config: { contextTimeoutSeconds: 0 } }).config.contextTimeoutSeconds).toBe(0);
  });
});

describe("message clones", () => {
  it("copy deeply, keep extra fields and an own __proto__ key, and copy exotic objects too", async () => {
    const { cloneMessages } = await import("../src/clone.js");
    const when = new Date(0);
    const original = JSON.parse('[{"role":"user","content":[{"type":"text","text":"hi"}],"__proto__":{"x":1},"meta":{"n":[1,2]}}]') as Message[];
    (original[0] as Record<string, unknown>).when = when;
    const copy = cloneMessages(original);
    expect(copy).toEqual(original);
    expect(copy[0]).not.toBe(original[0]);
    expect((copy[0] as { content: unknown[] }).content[0]).not.toBe((original[0] as { content: unknown[] }).content[0]);
    expect(Object.getPrototypeOf(copy[0])).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(copy[0], "__proto__")).toBe(true);
    expect((copy[0] as Record<string, unknown>).when).not.toBe(when);
    expect((copy[0] as Record<string, unknown>).when).toEqual(when);
  });
});

describe("incremental re-checks of a growing conversation", () => {
  it("still catch a problem appended after a clean check", () => {
    const messages: Message[] = [
      { role: "user", content: "u" },
      { role: "assistant", content: null, tool_calls: [call("a")] },
      { role: "tool", tool_call_id: "a", content: "ra" },
    ];
    expect(sanitizeRequestMessages(messages).messages).toBe(messages);
    messages.push({ role: "tool", tool_call_id: "b", content: "orphan in the same run" });
    const again = sanitizeRequestMessages(messages);
    expect(again.messages).toHaveLength(3);
    expect(again.repairs).toEqual(['dropped orphan tool result "b" at 3']);
    messages.pop();
    messages.push({ role: "user", content: "bad \uD800" });
    expect(sanitizeRequestMessages(messages).messages[3]!.content).toBe("bad \uFFFD");
  });

  it("count tokens of a growing list exactly as a full count", async () => {
    const { createEstimator } = await import("@context-engine/core");
    const { withListMemo } = await import("../src/request/list-tokens.js");
    const base = createEstimator();
    const memo = withListMemo(base);
    const list: Message[] = [{ role: "user", content: "hello there" }];
    expect(memo.countMessages(list)).toBe(base.countMessages(list));
    list.push({ role: "assistant", content: "general kenobi ".repeat(10) });
    expect(memo.countMessages(list)).toBe(base.countMessages(list));
    const replaced = [list[1]!];
    expect(memo.countMessages(replaced)).toBe(base.countMessages(replaced));
  });
});
