import { checkConversation } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantTemplateOf, fromOpenAiMessages, toOpenAiMessages } from "../src/index.js";
import type { OcAgentMessage } from "../src/index.js";
import { assistant, toolResult, user } from "./fixtures.js";

const text = fc.string({ maxLength: 12 });
const args = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean()), { maxKeys: 3 });

/** Conversations of user turns, each with 0–2 assistant steps of 0–3 parallel tool calls and their results. */
const conversation = fc
  .array(fc.tuple(text, fc.array(fc.tuple(text, fc.array(fc.tuple(fc.constantFrom("read", "grep", "bash"), args, text), { maxLength: 3 })), { maxLength: 2 }), text), {
    minLength: 1,
    maxLength: 5,
  })
  .map((turns) => {
    const out: OcAgentMessage[] = [];
    let n = 0;
    for (const [question, steps, answer] of turns) {
      out.push(user(question));
      for (const [say, calls] of steps) {
        const withIds = calls.map(([name, a, result]) => ({ id: `call_${n++}`, name, args: a, result }));
        out.push(assistant(say, withIds));
        for (const c of withIds) out.push(toolResult(c.id, c.name, c.result));
      }
      out.push(assistant(answer || "ok"));
    }
    return out;
  });

function pairs(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) out.push(`call:${c.id}:${c.function.name}:${c.function.arguments}`);
    if (m.role === "tool") out.push(`result:${m.tool_call_id}`);
  }
  return out;
}

describe("message conversion", () => {
  it("OpenClaw → OpenAI keeps every tool call paired with its result", () => {
    fc.assert(
      fc.property(conversation, (conv) => {
        const { messages } = toOpenAiMessages(conv);
        expect(checkConversation(messages)).toEqual([]);
        const calls = conv.flatMap((m) => (m.role === "assistant" ? (m.content as { type: string; id?: string }[]).filter((b) => b.type === "toolCall").map((b) => b.id) : []));
        expect(messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []))).toEqual(calls);
      }),
    );
  });

  it("round trip with an index returns the very originals", () => {
    fc.assert(
      fc.property(conversation, (conv) => {
        const { messages, origins } = toOpenAiMessages(conv);
        const back = fromOpenAiMessages(structuredClone(messages), origins, assistantTemplateOf(conv));
        expect(back.messages).toHaveLength(conv.length);
        back.messages.forEach((m, i) => expect(m).toBe(conv[i]));
      }),
    );
  });

  it("round trip without an index (engine-written messages) preserves calls, arguments and results", () => {
    fc.assert(
      fc.property(conversation, (conv) => {
        const first = toOpenAiMessages(conv).messages;
        const back = fromOpenAiMessages(first, null, assistantTemplateOf(conv)).messages;
        const again = toOpenAiMessages(back).messages;
        expect(pairs(again)).toEqual(pairs(first));
        expect(checkConversation(again)).toEqual([]);
        back.forEach((m, i) => {
          if (m.role === "toolResult") expect(m).toMatchObject({ toolCallId: (conv[i] as { toolCallId: string }).toolCallId, toolName: (conv[i] as { toolName: string }).toolName });
        });
      }),
    );
  });

  it("images survive both ways", () => {
    const conv: OcAgentMessage[] = [{ role: "user", content: [{ type: "text", text: "see" }, { type: "image", data: "aGVsbG8=", mimeType: "image/png" }], timestamp: 1 }];
    const first = toOpenAiMessages(conv).messages;
    expect(first[0]!.content).toEqual([{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } }]);
    expect(fromOpenAiMessages(first, null, assistantTemplateOf(conv)).messages[0]).toMatchObject({ content: (conv[0] as { content: unknown }).content });
  });
});
