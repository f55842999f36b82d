import fc from "fast-check";
import type { Message } from "@context-engine/core";

const text = fc.string({ maxLength: 40 });
const textPart = text.map((t) => ({ type: "text" as const, text: t }));
const imagePart = fc.record(
  {
    type: fc.constant("image_url" as const),
    image_url: fc.record(
      {
        url: fc.oneof(fc.webUrl(), fc.base64String({ maxLength: 24 }).map((b) => `data:image/png;base64,${b}`)),
        detail: fc.constantFrom("low", "high", "auto"),
      },
      { requiredKeys: ["url"] },
    ),
  },
);
const content = fc.oneof(text, fc.array(fc.oneof(textPart, imagePart), { minLength: 1, maxLength: 3 }));
const args = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((o) => JSON.stringify(o));
const toolName = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);

/** One turn: a user message, then tool rounds (an assistant with calls, every result in some order), then an answer. */
const turn = (turnIndex: number) =>
  fc
    .record({
      user: content,
      userName: fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }),
      rounds: fc.array(
        fc.record({
          preamble: fc.oneof(fc.constant(""), text),
          calls: fc.array(fc.record({ name: toolName, args, result: content }), { minLength: 1, maxLength: 3 }),
          resultOrder: fc.array(fc.nat(), { maxLength: 3 }),
          reasoning: fc.option(text, { nil: undefined }),
        }),
        { maxLength: 2 },
      ),
      answer: content,
    })
    .map(({ user, userName, rounds, answer }) => {
      const out: Message[] = [{ role: "user", content: user, ...(userName ? { name: userName } : {}) }];
      rounds.forEach((round, r) => {
        const calls = round.calls.map((c, k) => ({ id: `call_${turnIndex}_${r}_${k}`, type: "function" as const, function: { name: c.name, arguments: c.args } }));
        out.push({ role: "assistant", content: round.preamble, tool_calls: calls, ...(round.reasoning !== undefined ? { reasoning_content: round.reasoning } : {}) });
        const order = calls.map((_, k) => k);
        round.resultOrder.forEach((n, i) => {
          const j = n % order.length;
          [order[i % order.length], order[j]] = [order[j]!, order[i % order.length]!];
        });
        for (const k of order) out.push({ role: "tool", tool_call_id: calls[k]!.id, content: round.calls[k]!.result, name: round.calls[k]!.name });
      });
      out.push({ role: "assistant", content: answer });
      return out;
    });

/** A whole OpenAI-format conversation with valid tool pairs. */
export const conversation = fc
  .record({
    system: fc.option(fc.record({ role: fc.constantFrom("system" as const, "developer" as const), content }), { nil: undefined }),
    turns: fc.integer({ min: 1, max: 4 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => turn(i)))),
  })
  .map(({ system, turns }) => [...(system ? [system as Message] : []), ...turns.flat()]);
