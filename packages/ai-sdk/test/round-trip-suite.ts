import type { Message } from "@context-engine/core";
import { checkConversation, toolCallsOf } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createContextSession, fromOpenAIMessages, META_KEY, toOpenAIMessages } from "../src/index.js";
import { conversation } from "./conversations.js";
import { RecordingEngine, TailEngine } from "./engines.js";
import { scriptedModel } from "./harness.js";
import type { SdkKit } from "./harness.js";

const stripMeta = (messages: Message[]): Message[] =>
  messages.map((m) => {
    const { [META_KEY]: _meta, ...rest } = m as Record<string, unknown>;
    return rest as Message;
  });

const pairs = (messages: Message[]) => ({
  calls: messages.flatMap((m) => toolCallsOf(m).map((c) => c.id)),
  results: messages.filter((m) => m.role === "tool").map((m) => (m as { tool_call_id: string }).tool_call_id),
});

export function roundTripSuite(kit: SdkKit) {
  describe(`ai@${kit.major} message conversion (property tests)`, () => {
    it("generated conversations are valid SDK messages", () => {
      fc.assert(fc.property(conversation, (conv) => conv.every((m) => kit.modelMessageSchema.safeParse(m).success)), { numRuns: 50 });
    });

    it("SDK → OpenAI → SDK gives back the exact messages, also after a JSON round trip (engines that store)", () => {
      fc.assert(
        fc.property(conversation, (conv) => {
          const openai = toOpenAIMessages(conv);
          expect(checkConversation(openai)).toEqual([]);
          expect(fromOpenAIMessages(openai)).toEqual(conv);
          expect(fromOpenAIMessages(JSON.parse(JSON.stringify(openai)))).toEqual(conv);
        }),
        { numRuns: 100 },
      );
    });

    it("messages an engine rewrote (no metadata) still keep every tool pair, both ways", () => {
      fc.assert(
        fc.property(conversation, (conv) => {
          const openai = stripMeta(toOpenAIMessages(conv));
          const back = fromOpenAIMessages(openai) as unknown as typeof conv; // the loose shape, to read parts
          for (const m of back) expect(kit.modelMessageSchema.safeParse(m).success).toBe(true);
          const again = toOpenAIMessages(back);
          expect(checkConversation(again)).toEqual([]);
          expect(pairs(again)).toEqual(pairs(openai));
          // Without metadata, approval-only tool messages (no OpenAI form) are gone; every result message stays.
          const withResults = (list: typeof conv) => list.filter((m) => m.role === "tool" && Array.isArray(m.content) && m.content.some((p) => p.type === "tool-result")).length;
          expect(withResults(back)).toBe(withResults(conv));
        }),
        { numRuns: 100 },
      );
    });

    it("an engine that keeps messages but rewrites their neighbours still carries approval-only tool messages", () => {
      fc.assert(
        fc.property(conversation, (conv) => {
          const openai = toOpenAIMessages(conv);
          // Rewrite every user message (drops nothing): riders on other messages must survive.
          const rewritten = openai.map((m) => (m.role === "user" ? { ...m, content: "rewritten" } : m));
          const back = fromOpenAIMessages(rewritten) as unknown as typeof conv;
          const approvals = (list: typeof conv) => list.filter((m) => m.role === "tool" && Array.isArray(m.content) && m.content.every((p) => p.type === "tool-approval-response")).length;
          expect(approvals(back)).toBe(approvals(conv));
          expect(back.length).toBe(conv.length);
        }),
        { numRuns: 100 },
      );
    });

    it("through a real loop, tool pairs of generated histories survive a no-op and a compacting engine", async () => {
      await fc.assert(
        fc.asyncProperty(conversation, fc.boolean(), async (conv, compact) => {
          const engine = compact ? new TailEngine(3) : new RecordingEngine();
          const session = createContextSession(engine);
          const { model, prompts } = scriptedModel(kit, [{ text: "ok" }]);
          const result = await kit.generateText({ model, messages: [...conv, { role: "user", content: "next" }], prepareStep: session.prepareStep });
          const sent = toOpenAIMessages(prompts[0]!);
          expect(checkConversation(sent)).toEqual([]);
          if (!compact) expect(pairs(sent)).toEqual(pairs(toOpenAIMessages(conv)));
          const history = await session.finish(result);
          expect(checkConversation(toOpenAIMessages(history))).toEqual([]);
        }),
        { numRuns: 25 },
      );
    });
  });
}
