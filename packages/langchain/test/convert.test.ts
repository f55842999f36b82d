import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { checkConversation } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MessageCodec, fromOpenAIMessage, toOpenAIMessage, toOpenAIMessages, usageFromResponse } from "../src/index.js";
import { conversation } from "./arbitraries.js";

describe("message conversion", () => {
  it("OpenAI → LangChain → OpenAI is the identity over generated conversations", () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const langchain = messages.map(fromOpenAIMessage);
        expect(toOpenAIMessages(langchain)).toEqual(messages);
        expect(checkConversation(toOpenAIMessages(langchain))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("tool pairs survive LangChain → OpenAI → LangChain: ids, names, arguments and results", () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const langchain = messages.map(fromOpenAIMessage);
        const back = toOpenAIMessages(langchain).map(fromOpenAIMessage);
        expect(back.map((m) => m.type)).toEqual(langchain.map((m) => m.type));
        back.forEach((m, i) => {
          const orig = langchain[i]!;
          if (AIMessage.isInstance(m)) expect(m.tool_calls).toEqual((orig as AIMessage).tool_calls);
          if (ToolMessage.isInstance(m)) expect([m.tool_call_id, m.content]).toEqual([(orig as ToolMessage).tool_call_id, orig.content]);
        });
      }),
      { numRuns: 60 },
    );
  });

  it("the codec hands back the original LangChain objects for messages an engine kept (same object or equal copy)", () => {
    fc.assert(
      fc.property(conversation, fc.boolean(), (messages, copy) => {
        const originals = messages.map(fromOpenAIMessage);
        const codec = new MessageCodec();
        const wire = codec.toOpenAI(originals);
        const kept = copy ? structuredClone(wire.slice(1)) : wire.slice(1);
        const back = codec.fromOpenAI([{ role: "user", content: "summary" }, ...kept]);
        expect(back.slice(1)).toEqual(originals.slice(1));
        back.slice(1).forEach((m, i) => expect(m).toBe(originals[i + 1]));
        expect(HumanMessage.isInstance(back[0]!)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("LangChain's standard image blocks become OpenAI image_url parts", () => {
    const m = new HumanMessage({
      content: [
        { type: "text", text: "look" },
        { type: "image", url: "https://example.com/a.png" },
        { type: "image", data: "AAAA", mimeType: "image/jpeg" },
        { type: "image_url", image_url: { url: "https://example.com/b.png", detail: "low" } },
      ],
    });
    expect(toOpenAIMessage(m)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
        { type: "image_url", image_url: { url: "https://example.com/b.png", detail: "low" } },
      ],
    });
  });

  it("tool-use blocks that repeat tool_calls are not duplicated; invalid calls keep their pair", () => {
    const ai = new AIMessage({
      content: [{ type: "text", text: "calling" }, { type: "tool_use", id: "t1", name: "f", input: {} }],
      tool_calls: [{ id: "t1", name: "f", args: { a: 1 }, type: "tool_call" }],
      invalid_tool_calls: [{ id: "t2", name: "g", args: "{not json", error: "bad", type: "invalid_tool_call" }],
    });
    const wire = toOpenAIMessage(ai) as Message;
    expect(wire).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "calling" }],
      tool_calls: [
        { id: "t1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
        { id: "t2", type: "function", function: { name: "g", arguments: "{not json" } },
      ],
    });
    const back = fromOpenAIMessage(wire) as AIMessage;
    expect(back.tool_calls).toEqual([{ id: "t1", name: "f", args: { a: 1 }, type: "tool_call" }]);
    expect(back.invalid_tool_calls?.[0]).toMatchObject({ id: "t2", args: "{not json" });
    expect(toOpenAIMessage(new ToolMessage({ content: "r", tool_call_id: "t2" }))).toEqual({ role: "tool", content: "r", tool_call_id: "t2" });
  });

  it("developer messages keep their role; system messages stay system", () => {
    const dev = fromOpenAIMessage({ role: "developer", content: "rules" });
    expect(SystemMessage.isInstance(dev)).toBe(true);
    expect(toOpenAIMessage(dev)).toEqual({ role: "developer", content: "rules" });
    expect(toOpenAIMessage(new SystemMessage("s"))).toEqual({ role: "system", content: "s" });
  });
});

describe("usage", () => {
  it("maps usage_metadata (cached, cache writes, reasoning) and ignores garbage", () => {
    expect(
      usageFromResponse({
        usage_metadata: { input_tokens: 10, output_tokens: 2, total_tokens: 12, input_token_details: { cache_read: 6, cache_creation: 3 }, output_token_details: { reasoning: 1 } },
      }),
    ).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, input_tokens: 10, output_tokens: 2, cache_read_tokens: 6, cache_write_tokens: 3, reasoning_tokens: 1 });
    expect(usageFromResponse({ response_metadata: { usage: { prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 4 } } } })).toEqual({
      prompt_tokens: 5,
      completion_tokens: 1,
      total_tokens: 6,
      cache_read_tokens: 4,
    });
    expect(usageFromResponse({ usage_metadata: { input_tokens: -1, output_tokens: "x" } })).toBeNull();
    expect(usageFromResponse({})).toBeNull();
  });
});
