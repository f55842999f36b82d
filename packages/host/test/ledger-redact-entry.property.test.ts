import type { Message } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageDigest } from "../src/ledger/digest.js";
import { ledgerRedactor, redactLedgerEntry, redactMessage } from "../src/ledger/redact-entry.js";
import type { LedgerCompaction, PlacedMessage } from "../src/ledger/types.js";

const KEY = "sk-proj-Q7vXk2LmN9pR4tY8wZ1aB3cD5eF6gH0jK2lM4nP6qR8sT0uV";
const redactor = ledgerRedactor();
const text = (t: string) => redactor.redactText(t).text;

/** Every placed message copied, redacted and compared by its JSON: what the ledger file got before unchanged messages were passed through. */
function copiedAndCompared(placed: PlacedMessage): PlacedMessage {
  const message = redactMessage(placed.message, text);
  if (JSON.stringify(message) === JSON.stringify(placed.message)) return placed;
  return { index: placed.index, message, digest: placed.digest ?? messageDigest(placed.message) };
}

class Note {
  constructor(readonly text: string) {}
  toJSON() {
    return "a note";
  }
}

const words = fc.constantFrom("ok", "é", "😀", "\uD800", KEY, `key=${KEY}`, "password: hunter22");
const str = fc.array(words, { maxLength: 3 }).map((w) => w.join(" "));
const call = fc.record({ id: fc.constant("t1"), type: fc.constant("function"), function: fc.record({ name: str, arguments: str }) });
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "system", "tool"), content: str }),
  fc.record({ role: fc.constant("user"), content: fc.array(fc.oneof(fc.record({ type: fc.constant("text"), text: str }), fc.record({ type: fc.constant("image_url"), text: str })), { maxLength: 2 }) }),
  fc.record({ role: fc.constant("assistant"), content: fc.option(str, { nil: null }), tool_calls: fc.array(call, { maxLength: 2 }) }),
  fc.record({ role: fc.constant("user"), content: str, meta: fc.constantFrom<unknown>(undefined, 1, [null, "x"], { b: 1, a: [2] }, new Date(0), new Note("n")) }),
  str.map((t) => JSON.parse(`{"role":"user","__proto__":{"x":1},"content":${JSON.stringify(t)}}`)),
) as fc.Arbitrary<Message>;

function entryOf(removed: Message[], inserted: Message[]): LedgerCompaction {
  return {
    kind: "compaction",
    id: "c1",
    sessionId: "s",
    engine: "e",
    trigger: "manual",
    focusTopic: null,
    at: "2026-12-06T00:00:00.000Z",
    durationMs: 1,
    tokensBefore: 2,
    tokensAfter: 1,
    messagesBefore: removed.length,
    messagesAfter: inserted.length,
    removed: removed.map((message, index) => ({ index, message })),
    inserted: inserted.map((message, index) => ({ index, message })),
    before: [],
    after: [],
    cache: { bytesBefore: 0, bytesAfter: 0, identicalPrefixBytes: 0 },
  };
}

describe("redactLedgerEntry", () => {
  it("writes what copying, redacting and comparing every placed message wrote", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.array(message, { maxLength: 2 }), (removed, inserted) => {
        const entry = entryOf(removed, inserted);
        const redacted = redactLedgerEntry(entry, redactor) as LedgerCompaction;
        expect(JSON.stringify(redacted)).toBe(JSON.stringify({ ...entry, removed: entry.removed.map(copiedAndCompared), inserted: entry.inserted.map(copiedAndCompared) }));
        // A message with nothing to redact is written as the very placed message.
        entry.removed.forEach((p, i) => {
          if (copiedAndCompared(p) === p) expect(redacted.removed[i]).toBe(p);
        });
      }),
      { numRuns: 800 },
    );
  });
});
