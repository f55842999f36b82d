import fc from "fast-check";
import type { SdkMessage, SdkPart } from "../src/index.js";

const text = fc.string({ minLength: 1, maxLength: 20 });
const providerOptions = fc.option(fc.record({ anthropic: fc.record({ cacheControl: fc.constant({ type: "ephemeral" }) }) }), { nil: undefined });
const bytes = fc.uint8Array({ minLength: 1, maxLength: 12 });

const withOptions = <T extends Record<string, unknown>>(part: fc.Arbitrary<T>) =>
  fc.tuple(part, providerOptions).map(([p, o]) => (o ? { ...p, providerOptions: o } : p));

const userPart: fc.Arbitrary<SdkPart> = fc.oneof(
  withOptions(fc.record({ type: fc.constant("text"), text })),
  withOptions(fc.record({ type: fc.constant("image"), image: bytes, mediaType: fc.constant("image/png") })),
  withOptions(fc.record({ type: fc.constant("image"), image: fc.constant(new URL("https://example.com/cat.png")) })),
  withOptions(fc.record({ type: fc.constant("file"), data: bytes, mediaType: fc.constant("application/pdf"), filename: fc.constant("doc.pdf") })),
);

const user: fc.Arbitrary<SdkMessage> = fc.oneof(
  text.map((t) => ({ role: "user" as const, content: t })),
  fc.array(userPart, { minLength: 1, maxLength: 3 }).map((content) => ({ role: "user" as const, content })),
);

const output = fc.oneof(
  fc.record({ type: fc.constant("text"), value: text }),
  fc.record({ type: fc.constant("json"), value: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v))) }),
  fc.record({ type: fc.constant("error-text"), value: text }),
  fc.record({ type: fc.constant("execution-denied"), reason: text }),
  fc.record({
    type: fc.constant("content"),
    value: fc.array(fc.oneof(fc.record({ type: fc.constant("text"), text }), fc.record({ type: fc.constant("image-data"), data: fc.base64String({ minLength: 4, maxLength: 16 }), mediaType: fc.constant("image/png") })), { minLength: 1, maxLength: 2 }),
  }),
);

/** One agent round: optional reasoning and text, 1-3 tool calls, one tool message with every result. */
function toolRound(round: number): fc.Arbitrary<SdkMessage[]> {
  return fc
    .record({
      reasoning: fc.option(withOptions(fc.record({ type: fc.constant("reasoning"), text })), { nil: undefined }),
      say: fc.option(text, { nil: undefined }),
      calls: fc.array(fc.record({ input: fc.record({ path: text }), output, providerOptions, executed: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      approval: fc.option(fc.boolean(), { nil: undefined, freq: 3 }),
    })
    .map(({ reasoning, say, calls, approval }) => {
      const content: SdkPart[] = [];
      if (reasoning) content.push(reasoning);
      if (say) content.push({ type: "text", text: say });
      const ids = calls.map((_, i) => `call_${round}_${i}`);
      calls.forEach((c, i) => {
        const part: SdkPart = { type: "tool-call", toolCallId: ids[i], toolName: `tool_${i}`, input: c.input };
        if (c.providerOptions) part.providerOptions = c.providerOptions;
        content.push(part);
      });
      const results: SdkPart[] = calls.map((c, i) => ({ type: "tool-result", toolCallId: ids[i] as string, toolName: `tool_${i}`, output: c.output }));
      const msgs: SdkMessage[] = [
        { role: "assistant" as const, content },
        { role: "tool" as const, content: results },
      ];
      // A tool message of approval responses only: no OpenAI form, carried as metadata.
      if (approval !== undefined) msgs.push({ role: "tool", content: [{ type: "tool-approval-response", approvalId: `ap_${ids[0]}`, approved: approval }] });
      return msgs;
    });
}

/** Conversations the SDK accepts: user turns, tool rounds with all their results, assistant answers. */
export const conversation: fc.Arbitrary<SdkMessage[]> = fc
  .array(fc.record({ user, rounds: fc.integer({ min: 0, max: 2 }), answer: text }), { minLength: 1, maxLength: 4 })
  .chain((turns) => {
    let round = 0;
    const parts = turns.map((t) =>
      fc.tuple(...Array.from({ length: t.rounds }, () => toolRound(round++))).map((rounds) => [
        t.user,
        ...rounds.flat(),
        { role: "assistant" as const, content: [{ type: "text", text: t.answer }] },
      ]),
    );
    return fc.tuple(...parts).map((chunks) => chunks.flat() as SdkMessage[]);
  });
