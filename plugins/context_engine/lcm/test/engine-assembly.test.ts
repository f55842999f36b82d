import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { checkConversation, defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { assembleContext, RowCache } from "../src/assembly/assembler.js";
import { openLcmStore } from "../src/store/index.js";
import type { LcmStore } from "../src/store/types.js";
import { tempDir } from "./engine-helpers.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function openStore(): LcmStore {
  const t = tempDir();
  const store = openLcmStore({ dataDir: t.dir, redaction: false });
  cleanups.push(() => {
    store.close();
    t.cleanup();
  });
  return store;
}

type Op =
  | { kind: "user"; size: number }
  | { kind: "answer"; size: number }
  | { kind: "tools"; calls: number; size: number; big: boolean }
  | { kind: "compact"; take: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), size: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant("answer" as const), size: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant("tools" as const), calls: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 200 }), big: fc.boolean() }),
  fc.record({ kind: fc.constant("compact" as const), take: fc.integer({ min: 1, max: 12 }) }),
);

const filler = (n: number, tag: string) => `${tag} ${"lorem ipsum dolor ".repeat(n)}`;

describe("assembly", () => {
  it("incremental assembly equals a from-scratch assembly after any sequence of appends and compactions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 300, max: 4_000 }), async (ops, budget) => {
        const store = openStore();
        const conv = store.conversation(`s${Math.random()}`);
        const shared = new RowCache();
        const head: Message[] = [{ role: "system", content: "sys" }];
        let call = 0;
        let n = 0;
        for (const op of ops) {
          if (op.kind === "compact") {
            // Summarise the oldest run of whole units in the frontier, as compaction does.
            const items = store.getFrontier(conv.id).items;
            const from = items.findIndex((it) => it.kind === "message" && store.getMessage(it.messageId)!.role !== "tool");
            if (from < 0) continue;
            const run: number[] = [];
            let end = from;
            while (end < items.length) {
              const it = items[end]!;
              if (it.kind !== "message") break;
              const role = store.getMessage(it.messageId)!.role;
              // Stop only between units: never before a tool result.
              if (run.length >= op.take && role !== "tool") break;
              run.push(it.messageId);
              end++;
            }
            if (run.length === 0) continue;
            const expect = run.map((messageId) => ({ kind: "message" as const, messageId }));
            const res = store.commitSummary(
              { conversationId: conv.id, kind: "leaf", depth: 0, content: filler(5, `summary ${n++}`), tokens: 20, sourceMessageIds: run },
              { fromOrdinal: items[from]!.ordinal, toOrdinal: items[end - 1]!.ordinal, expect },
            );
            if (!res.ok) throw new Error(res.detail);
          } else if (op.kind === "tools") {
            const ids = Array.from({ length: op.calls }, () => `c${call++}`);
            const msgs: Message[] = [
              { role: "assistant", content: null, tool_calls: ids.map((id) => ({ id, type: "function" as const, function: { name: "f", arguments: "{}" } })) },
              ...ids.map((id) => ({ role: "tool" as const, tool_call_id: id, content: filler(op.big ? 2_000 : op.size, id) })),
            ];
            store.ingest(conv.id, msgs, { mode: "append" });
          } else {
            store.ingest(conv.id, [{ role: op.kind === "user" ? "user" : "assistant", content: filler(op.size, `m${n++}`) }], { mode: "append" });
          }
          const input = { conversationId: conv.id, head, budget, largeMessageTokens: 800 };
          const incremental = await assembleContext(store, shared, input);
          const scratch = await assembleContext(store, new RowCache(), input);
          expect(incremental.messages).toEqual(scratch.messages);
          expect(checkConversation(incremental.messages)).toEqual([]);
          expect(defaultTokenCounter.countMessages(incremental.messages)).toBeLessThanOrEqual(Math.max(budget, defaultTokenCounter.countMessages(head) + 200) * 1.05);
        }
      }),
      { numRuns: Number(process.env.LCM_PROPERTY_RUNS ?? 40) },
    );
  });

  it("renders the same bytes for the same frontier (prompt-cache friendly)", async () => {
    const store = openStore();
    const conv = store.conversation("s");
    store.ingest(conv.id, [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ]);
    const a = await assembleContext(store, new RowCache(), { conversationId: conv.id, head: [], budget: 1_000, largeMessageTokens: 800 });
    const b = await assembleContext(store, new RowCache(), { conversationId: conv.id, head: [], budget: 1_000, largeMessageTokens: 800 });
    expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
  });
});
