import fc from "fast-check";
import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { exportConversation, importConversation, MAX_MESSAGE_CHARS, type ConversationExport } from "../../src/transfer/index.js";
import { storeScope, type StoreContractOptions } from "./factory.js";

type Doc = ConversationExport;
const T0 = 1_700_000_000_000;

/** A valid document: a tool exchange, two leaves under a condensed summary, and a frontier. */
export function baseDoc(): Doc {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "read a.ts" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "export const a = 1;" },
    { role: "assistant", content: "a is 1" },
    { role: "user", content: [{ type: "text", text: "thanks" }, { type: "image_url", image_url: { url: "https://example.com/x.png" } }] },
  ];
  return {
    format: "lcm-conversation",
    version: 1,
    sessionId: "doc-1",
    messages: messages.map((message, i) => ({ message, createdAt: T0 + i * 1000 })) as Doc["messages"],
    summaries: [
      { kind: "leaf", depth: 0, content: "asked to read a.ts", tokens: 4, level: "normal", model: "m", meta: null, createdAt: T0 + 10_000, messages: [1, 2] },
      { kind: "leaf", depth: 0, content: "a.ts exports a = 1", tokens: 5, level: "normal", model: "m", meta: { prompt: "v1" }, createdAt: T0 + 10_000, messages: [3, 4] },
      { kind: "condensed", depth: 1, content: "read a.ts: a = 1", tokens: 5, level: "fallback", model: null, meta: null, createdAt: T0 + 20_000, children: [0, 1] },
    ],
    frontier: [{ message: 0 }, { summary: 2 }, { message: 5 }],
  };
}

const clone = (d: Doc): Doc => structuredClone(d);
type Mutation = [name: string, mutate: (d: any) => void, path: RegExp];

/** Each breaks one rule the stores enforce when they write; the error names the field. */
export const INVALID: Mutation[] = [
  ["unknown role", (d) => (d.messages[1].message.role = "wizard"), /export\.messages\.1\.message\.role/],
  ["missing role", (d) => delete d.messages[1].message.role, /export\.messages\.1\.message\.role/],
  ["content of the wrong type", (d) => (d.messages[1].message.content = 42), /export\.messages\.1\.message\.content/],
  ["missing content", (d) => delete d.messages[4].message.content, /export\.messages\.4\.message\.content/],
  ["a text part without text", (d) => (d.messages[5].message.content[0] = { type: "text", text: 7 }), /export\.messages\.5\.message\.content\.0/],
  ["a timestamp far in the future", (d) => (d.messages[2].createdAt = 1e300), /export\.messages\.2\.createdAt/],
  ["a negative timestamp", (d) => (d.messages[2].createdAt = -1), /export\.messages\.2\.createdAt/],
  ["a fractional timestamp", (d) => (d.summaries[0].createdAt = 1.5), /export\.summaries\.0\.createdAt/],
  ["tool calls on a user message", (d) => (d.messages[1].message.tool_calls = d.messages[2].message.tool_calls), /export\.messages\.1\.message\.tool_calls/],
  ["an empty tool_calls list", (d) => (d.messages[4].message.tool_calls = []), /export\.messages\.4\.message\.tool_calls/],
  ["a tool result without its call", (d) => (d.messages[3].message.tool_call_id = "c9"), /export\.messages\.3\.message\.tool_call_id: answers call "c9"/],
  ["a tool result before its call", (d) => ([d.messages[2], d.messages[3]] = [d.messages[3], d.messages[2]]), /export\.messages\.2\.message\.tool_call_id/],
  ["a call id twice in one message", (d) => d.messages[2].message.tool_calls.push({ ...d.messages[2].message.tool_calls[0] }), /export\.messages\.2\.message\.tool_calls\.1\.id: call id "c1" appears twice/],
  ["a tool result without tool_call_id", (d) => delete d.messages[3].message.tool_call_id, /export\.messages\.3\.message\.tool_call_id/],
  ["an unpaired surrogate in the session id", (d) => (d.sessionId = "s\uD800"), /export\.sessionId/],
  ["a tool call without an answer", (d) => (d.messages[3].message = { role: "assistant", content: "skipped" }), /export\.messages\.2\.message\.tool_calls\.0\.id: call "c1" has no tool result/],
  ["a call id used by two messages", (d) => (d.messages[4].message = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }), /export\.messages\.4\.message\.tool_calls\.0\.id: call id "c1" is already used by messages\.2/],
  ["a call answered twice", (d) => (d.messages[4].message = { role: "tool", tool_call_id: "c1", content: "again" }), /export\.messages\.4\.message\.tool_call_id: answers call "c1" a second time/],
  ["a condensed summary at the wrong depth", (d) => (d.summaries[2].depth = 3), /export\.summaries\.2\.depth: 1: one above its deepest child/],
  ["an empty active context", (d) => (d.frontier = []), /export\.frontier: an active context for the 6 messages/],
  ["an active context short of the newest message", (d) => (d.frontier = [{ message: 0 }, { summary: 2 }]), /export\.frontier\.1: an active context that reaches the newest message/],
  ["a message larger than the bound", (d) => (d.messages[4].message.content = "x".repeat(MAX_MESSAGE_CHARS)), /export\.messages\.4\.message: a message of at most/],
  ["a leaf source outside the conversation", (d) => (d.summaries[0].messages = [1, 60]), /export\.summaries\.0\.messages\.1: message 60 is not in this conversation/],
  ["a leaf without sources", (d) => (d.summaries[0].messages = []), /export\.summaries\.0\.messages: a leaf covers at least one message/],
  ["a leaf with children", (d) => (d.summaries[1].children = [0]), /export\.summaries\.1\.children: a leaf covers messages/],
  ["a leaf deeper than 0", (d) => (d.summaries[0].depth = 1), /export\.summaries\.0\.depth/],
  ["repeated leaf sources", (d) => (d.summaries[0].messages = [1, 1]), /export\.summaries\.0\.messages\.1/],
  ["a condensed summary without children", (d) => (d.summaries[2].children = []), /export\.summaries\.2\.children/],
  ["a condensed summary with messages", (d) => (d.summaries[2].messages = [1]), /export\.summaries\.2\.messages/],
  ["a cycle (a summary covering itself)", (d) => (d.summaries[2].children = [0, 2]), /export\.summaries\.2\.children\.1: summary 2 must come earlier/],
  ["a child outside the document", (d) => (d.summaries[2].children = [0, 7]), /export\.summaries\.2\.children\.1/],
  ["a condensed summary not deeper than its children", (d) => (d.summaries[2].depth = 0), /export\.summaries\.2\.depth/],
  ["summaries out of export order", (d) => (d.summaries = [d.summaries[1], d.summaries[0], { ...d.summaries[2], children: [1, 0] }]), /export\.summaries\.1: summaries in export order/],
  ["the same summary twice", (d) => (d.summaries = [d.summaries[0], { ...d.summaries[0] }]), /export\.summaries\.1: the same summary as summaries\.0/],
  ["a summary with an empty content", (d) => (d.summaries[0].content = ""), /export\.summaries\.0\.content/],
  ["a NUL in a summary", (d) => (d.summaries[0].content = "a\u0000b"), /export\.summaries\.0\.content/],
  ["a frontier item out of range", (d) => (d.frontier = [{ summary: 9 }]), /export\.frontier\.0\.summary: summary 9 is not in this document/],
  ["a frontier item twice", (d) => (d.frontier = [{ message: 0 }, { message: 0 }]), /export\.frontier\.1: items in conversation order/],
  ["a frontier overlapping a summary", (d) => (d.frontier = [{ summary: 2 }, { message: 3 }]), /export\.frontier\.1: items in conversation order/],
  ["an unknown top-level field", (d) => (d.extra = 1), /export: Unrecognized key/],
  ["a missing session id", (d) => (d.sessionId = ""), /export\.sessionId/],
];

async function nothingWritten(store: LcmStoreDriver): Promise<void> {
  expect(await store.listConversations()).toEqual([]);
}

export function transferContract(options: StoreContractOptions): void {
  describe("export / import", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("round-trips a document exactly, and refuses a session that is not fresh", async () => {
      const store = await scope.open({ redaction: false });
      const doc = baseDoc();
      expect(await importConversation(store, clone(doc))).toMatchObject({ messages: 6, summaries: 3 });
      expect(await exportConversation(store, "doc-1")).toEqual(doc);
      await expect(importConversation(store, clone(doc))).rejects.toThrow(/session "doc-1" already holds 6 messages/);
    });

    it("refuses each broken rule before its first write, naming the field", async () => {
      const store = await scope.open({ redaction: false });
      for (const [name, mutate, path] of INVALID) {
        const doc: any = clone(baseDoc());
        mutate(doc);
        await expect(importConversation(store, doc), name).rejects.toThrow(path);
        await nothingWritten(store);
      }
    });

    // The largest allowed message (8 MiB) takes a while on a loaded machine: a generous timeout, no timing asserted.
    it("round-trips edge cases: empty content, unusual unicode, NUL in a message, the largest allowed message", { timeout: 120_000 }, async () => {
      const store = await scope.open({ redaction: false });
      const doc = baseDoc();
      const odd = "e\u0301 \u{1F469}\u200D\u{1F4BB} \u202Eevil\u202C \u2028 \uFEFF \u{10FFFF} 𝔘𝔫𝔦 \u0000 end";
      const big = "y".repeat(MAX_MESSAGE_CHARS - 64);
      doc.messages.push(
        { message: { role: "user", content: "" }, createdAt: T0 + 30_000 } as Doc["messages"][number],
        { message: { role: "assistant", content: odd, name: "ünï", custom: { k: [1, null, "\u0000"] } }, createdAt: T0 + 31_000 } as Doc["messages"][number],
        { message: { role: "user", content: big }, createdAt: T0 + 32_000 } as Doc["messages"][number],
        { message: { role: "user", content: [] }, createdAt: 0 } as Doc["messages"][number],
      );
      doc.frontier.push({ message: 6 }, { message: 7 }, { message: 8 }, { message: 9 });
      await importConversation(store, JSON.parse(JSON.stringify(doc)));
      const back = await exportConversation(store, "doc-1");
      expect(back).toEqual(doc);
    });

    it("unpaired surrogates: what the store keeps from ingest exports and imports again (one rule: U+FFFD)", async () => {
      const store = await scope.open({ redaction: false });
      const lone = fc.constantFrom("\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uDC00\uD800", "a\uD83D", "\uDE00b");
      const text = fc.tuple(fc.string({ maxLength: 12 }), lone, fc.string({ maxLength: 12 })).map(([a, l, b]) => a + l + b);
      let run = 0;
      await fc.assert(
        fc.asyncProperty(text, text, text, text, async (content, args, name, key) => {
          const sessionId = `lone-${run++}`;
          const conv = await store.conversation(sessionId);
          await store.ingest(conv.id, [
            { role: "user", content, name },
            { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: args } }] },
            { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: content }], [key]: { [key]: key } } as never,
            { role: "assistant", content: `done ${content}` },
          ]);
          const exported = await exportConversation(store, sessionId);
          expect(JSON.stringify(exported)).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i);
          const copy = `${sessionId}-copy`;
          await importConversation(store, { ...exported, sessionId: copy });
          expect(await exportConversation(store, copy)).toEqual({ ...exported, sessionId: copy });
          // An export written elsewhere with unpaired surrogates imports as the store would have kept it.
          const foreign: any = clone(baseDoc());
          foreign.sessionId = `${sessionId}-foreign`;
          foreign.messages[4].message.content = content;
          foreign.summaries[0].content = `leaf ${content}`;
          await importConversation(store, foreign);
          const back = await exportConversation(store, foreign.sessionId);
          expect(back!.messages[4]!.message.content).toBe(content.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));
        }),
        { numRuns: 15 },
      );
    });

    it("what ingest keeps with broken tool pairing (calls cut short, ids used again, stray results) exports marked and imports identical (property)", async () => {
      const store = await scope.open({ redaction: false });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(pairingConversation, async (messages) => {
          const sessionId = `pairing-${run++}`;
          const conv = await store.conversation(sessionId);
          const kept = await store.ingest(conv.id, messages, { timestamps: messages.map((_, i) => T0 + i) });
          expect(kept.appended).toBe(messages.length);
          const exported = (await exportConversation(store, sessionId))!;
          expect(exported.messages.map((m) => m.message)).toEqual(messages);
          const copy = `${sessionId}-copy`;
          await importConversation(store, { ...exported, sessionId: copy });
          expect(await exportConversation(store, copy)).toEqual({ ...exported, sessionId: copy });
        }),
        { numRuns: 40 },
      );
    });

    it("an interrupted call: marked on export, accepted only where marked, and a mark on a message that pairs is refused", async () => {
      const store = await scope.open({ redaction: false });
      const doc: any = clone(baseDoc());
      // The call of messages.2 is cut short: the user speaks again before its result.
      doc.messages[3].message = { role: "user", content: "never mind" };
      await expect(importConversation(store, clone(doc))).rejects.toThrow(/export\.messages\.2\.message\.tool_calls\.0\.id: call "c1" has no tool result before the next message \(a message kept this way is marked unpaired: true\)/);
      doc.messages[2].unpaired = true;
      await importConversation(store, clone(doc));
      const back = await exportConversation(store, "doc-1");
      expect(back).toEqual(doc);
      expect(back!.messages.filter((m) => m.unpaired).map((m) => m.message.role)).toEqual(["assistant"]);
      const marked: any = clone(baseDoc());
      marked.sessionId = "doc-2";
      marked.messages[4].unpaired = true;
      await expect(importConversation(store, marked)).rejects.toThrow(/export\.messages\.4\.unpaired: marked unpaired, but its tool calls and results pair/);
      expect(await store.findConversation("doc-2")).toBeNull();
    });

    it("a session id with NUL or an unpaired surrogate is refused by name, before any query, on every store", async () => {
      const store = await scope.open({ redaction: false });
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 10 }), fc.constantFrom("\u0000", "\uD800", "\uDFFF"), fc.string({ maxLength: 10 }), async (a, bad, b) => {
          const id = a + bad + b;
          await expect(Promise.resolve().then(() => store.conversation(id))).rejects.toThrow(/session id .* cannot be stored: it must be (no NUL|well-formed)/);
          expect(await store.findConversation(id)).toBeNull();
          await expect(importConversation(store, { ...clone(baseDoc()), sessionId: id })).rejects.toThrow(/export\.sessionId/);
          await expect(importConversation(store, clone(baseDoc()), { as: id })).rejects.toThrow(/as: a session id/);
        }),
        { numRuns: 20 },
      );
      await nothingWritten(store);
    });

    it("round-trips generated documents, and refuses generated breakage with nothing written", async () => {
      const store = await scope.open({ redaction: false });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(generatedDoc, fc.integer({ min: 0, max: INVALID.length - 1 }), async (generated, broken) => {
          const doc = { ...generated, sessionId: `${generated.sessionId}#${run++}` };
          const before = (await store.listConversations()).length;
          await importConversation(store, clone(doc));
          expect(await exportConversation(store, doc.sessionId)).toEqual(doc);
          const bad: any = clone(baseDoc());
          INVALID[broken]![1](bad);
          await expect(importConversation(store, bad)).rejects.toThrow(/invalid LCM conversation export/);
          expect(await store.listConversations()).toHaveLength(before + 1);
        }),
        { numRuns: 25 },
      );
    });

    it("of two imports of one conversation at once, one is stored and the other refused: rows never interleave", async () => {
      const store = await scope.open({ redaction: false });
      const doc = baseDoc();
      for (let round = 0; round < 3; round++) {
        const sessionId = `race-${round}`;
        const results = await Promise.allSettled([importConversation(store, { ...clone(doc), sessionId }), importConversation(store, { ...clone(doc), sessionId })]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
        expect(String(refused.reason)).toMatch(/already holds|is in use|another writer at the same time/);
        expect(await exportConversation(store, sessionId)).toEqual({ ...doc, sessionId });
      }
    });

    it("the same holds for two handles on one store (two connections, as two processes have)", async () => {
      const store = await scope.open({ redaction: false });
      const other = await scope.again();
      const doc = baseDoc();
      for (let round = 0; round < 3; round++) {
        const sessionId = `race2-${round}`;
        const results = await Promise.allSettled([importConversation(store, { ...clone(doc), sessionId }), importConversation(other, { ...clone(doc), sessionId })]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        expect(String((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason)).toMatch(/already holds|is in use|another writer at the same time/);
        expect(await exportConversation(other, sessionId)).toEqual({ ...doc, sessionId });
      }
    });
  });
}

/** Valid documents: text, tool exchanges and unicode; leaves over consecutive runs, one condensed on top. */
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("", "café résumé", "静默模式", "\u{1F600}", "a\u0000b"));
const generatedDoc: fc.Arbitrary<Doc> = fc
  .record({
    turns: fc.array(fc.tuple(text, text, fc.boolean()), { minLength: 1, maxLength: 8 }),
    leafSize: fc.integer({ min: 1, max: 4 }),
    session: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes("\u0000")),
  })
  .map(({ turns, leafSize, session }) => {
    const messages: Array<Record<string, unknown>> = [];
    turns.forEach(([q, a, tool], i) => {
      messages.push({ role: "user", content: q });
      if (tool) messages.push({ role: "assistant", content: null, tool_calls: [{ id: `t${i}`, type: "function", function: { name: "f", arguments: a } }] }, { role: "tool", tool_call_id: `t${i}`, content: a });
      else messages.push({ role: "assistant", content: a });
    });
    const summaries: Doc["summaries"] = [];
    const covered = Math.floor(messages.length / leafSize / 2) * leafSize * 2;
    for (let from = 0; from < covered; from += leafSize) {
      summaries.push({ kind: "leaf", depth: 0, content: `leaf ${from}`, tokens: 3, level: "normal", model: null, meta: null, createdAt: T0, messages: Array.from({ length: leafSize }, (_, k) => from + k) });
    }
    const frontier: Doc["frontier"] = [];
    if (summaries.length >= 2) {
      summaries.push({ kind: "condensed", depth: 1, content: "all of it", tokens: 2, level: "aggressive", model: "m", meta: { n: summaries.length }, createdAt: T0 + 1, children: summaries.map((_, k) => k) });
      frontier.push({ summary: summaries.length - 1 });
    }
    for (let p = covered; p < messages.length; p++) frontier.push({ message: p });
    return {
      format: "lcm-conversation",
      version: 1,
      sessionId: session,
      messages: messages.map((message, i) => ({ message, createdAt: T0 + i })),
      summaries,
      frontier,
    } as Doc;
  });

/**
 * Conversations as hosts send them, tool pairing broken the ways a store keeps: calls cut short (the next
 * message is not their result), call ids used again (providers that number calls per turn), results
 * without a call or answering one twice, and calls still open at the end.
 */
const callId = fc.constantFrom("call_0", "call_1", "c", "toolu_01");
const pairingStep: fc.Arbitrary<Array<Record<string, unknown>>> = fc.oneof(
  text.map((t) => [{ role: "user", content: t }]),
  text.map((t) => [{ role: "assistant", content: t }]),
  fc.tuple(fc.uniqueArray(callId, { minLength: 1, maxLength: 2 }), fc.integer({ min: 0, max: 2 }), text).map(([ids, answered, t]) => [
    { role: "assistant", content: null, tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "f", arguments: t } })) },
    ...ids.slice(0, answered).map((id) => ({ role: "tool", tool_call_id: id, content: t })),
  ]),
  fc.tuple(callId, text).map(([id, t]) => [{ role: "tool", tool_call_id: id, content: t }]),
);
const pairingConversation = fc.array(pairingStep, { minLength: 1, maxLength: 10 }).map((steps) => steps.flat() as unknown as Message[]);
