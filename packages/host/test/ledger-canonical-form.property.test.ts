import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PINS_HEADER, type Logger, type Message } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignLists, canonicalMessage, messageDigest } from "../src/ledger/digest.js";
import { SessionLedger } from "../src/ledger/ledger.js";
import { listForms } from "../src/ledger/list-forms.js";
import { referenceDigest, referenceForm, referenceListForms } from "./support/canonical-reference.js";

/**
 * Forms are now written straight from the message; digests on disk were made by the sorted copy and
 * JSON.stringify (support/canonical-reference.ts). Every form, digest, byte count and flag must be the
 * reference's, for real recorded conversations and for generated odd data alike.
 */

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

// The recorded conversations in shared/data (not copied into the repo), read at test time.
// The checkout's sibling shared/data ("../../../shared/data" from a package of the main checkout; one level
// further up from a worktree under wt/), unless CONTEXT_ENGINE_DATA_DIR names it.
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const dataDir = process.env.CONTEXT_ENGINE_DATA_DIR
  ? resolve(packageDir, process.env.CONTEXT_ENGINE_DATA_DIR)
  : (["../../../shared/data", "../../../../shared/data"].map((p) => resolve(packageDir, p)).find((p) => existsSync(p)) ?? resolve(packageDir, "../../../shared/data"));
const haveData = existsSync(dataDir);
if (!haveData) console.warn(`[ledger canonical form] NOTICE: shared data not found at ${dataDir} (set CONTEXT_ENGINE_DATA_DIR): the real conversations are skipped`);

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return /\.(json|traj)$/.test(name) ? [path] : [];
  });
}

/** Every list of message-like objects in a parsed file: objects with a role, or LoCoMo turns (speaker and text). */
function conversationsIn(value: unknown, out: Message[][] = []): Message[][] {
  if (Array.isArray(value)) {
    const first = value[0] as Record<string, unknown> | undefined;
    if (first && typeof first === "object" && ("role" in first || ("speaker" in first && "text" in first))) out.push(value as Message[]);
    else for (const item of value) conversationsIn(item, out);
  } else if (value && typeof value === "object") {
    for (const item of Object.values(value)) conversationsIn(item, out);
  }
  return out;
}

const conversations: Message[][] = haveData ? jsonFiles(dataDir).flatMap((file) => conversationsIn(JSON.parse(readFileSync(file, "utf8")))) : [];

function expectReferenceForms(messages: readonly Message[]): void {
  const forms = listForms(messages);
  const reference = referenceListForms(messages);
  expect([...forms.keys]).toEqual(reference.map((r) => r.key));
  expect(forms.digests).toEqual(reference.map((r) => r.digest));
  expect([...forms.bytes]).toEqual(reference.map((r) => r.bytes));
  expect([...forms.sameBytes]).toEqual(reference.map((r) => r.sameBytes));
  expect([...forms.wellFormed]).toEqual(reference.map((r) => r.wellFormed));
}

describe.skipIf(!haveData)("canonical forms of the recorded conversations", () => {
  it("finds the conversations", () => {
    expect(conversations.length).toBeGreaterThan(20);
    expect(conversations.reduce((n, c) => n + c.length, 0)).toBeGreaterThan(5000);
  });

  it("gives every message the reference form, digest, bytes and flags", () => {
    for (const messages of conversations) {
      expectReferenceForms(messages);
      for (const m of messages) {
        expect(canonicalMessage(m)).toBe(referenceForm(m));
        expect(messageDigest(m)).toBe(referenceDigest(m));
      }
    }
  });

  it("records a compaction of each with the reference digests and the reference alignment", () => {
    for (const messages of conversations) {
      if (messages.length < 4) continue;
      const keep = Math.max(1, Math.floor(messages.length / 5));
      // JSON copies of the kept tail, as a store gives them back, and one summary.
      const after = [messages[0]!, { role: "user", content: "summary" } as Message, ...messages.slice(-keep).map((m) => JSON.parse(JSON.stringify(m)) as Message)];
      const entry = new SessionLedger(null, silent).recordCompaction({ sessionId: "s", engine: "e", trigger: "manual", focusTopic: null, durationMs: 0, tokensBefore: 0, tokensAfter: 0, before: messages, after });
      expect(entry.before).toEqual(messages.map(referenceDigest));
      expect(entry.after).toEqual(after.map(referenceDigest));
      const aligned = alignLists(messages, after, { before: messages.map((m) => referenceForm(m)), after: after.map((m) => referenceForm(m)) });
      expect(entry.removed.map((r) => r.index)).toEqual(aligned.removed);
      expect(entry.inserted.map((r) => r.index)).toEqual(aligned.inserted);
    }
  });
});

class Note {
  constructor(readonly text: string) {}
}

class Items extends Array<unknown> {}

class WithToJson {
  constructor(readonly secret: string) {}
  toJSON(key: string) {
    return { as: "json", key };
  }
}

// Odd data: lone surrogates and written-out escapes, line separators, keys JSON orders on its own (array indexes),
// numbers JSON writes its own way, values JSON drops, objects that are not plain data, toJSON fields, __proto__ keys.
const unit = fc.constantFrom("a", "é", "\u4e2d", "😀", "\uD800", "\uDC00", "\uDBFF\uDFFF", '"', "\\", "\\ud800", "\u2028", "\n", "\u0000", "\u007f", "</");
const text = fc.array(unit, { maxLength: 10 }).map((u) => u.join(""));
const key = fc.oneof(fc.constantFrom("a", "b", "B", "_", "0", "2", "10", "01", "-1", "1.5", "4294967294", "4294967295", "cache_control", "toJSON", "role", "content", "é", "😀", ""), text);
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, 0, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, NaN, Infinity, -Infinity, 123456789012345680000));
const odd = fc.constantFrom<unknown>(
  new Date(0),
  new Note("n"),
  new Map([["k", 1]]),
  new Set([1]),
  Object.create(null),
  Object.assign(Object.create(null), { b: 1, a: [2] }),
  new String("boxed"),
  new Number(4),
  new Boolean(false),
  new WithToJson("s"),
  { toJSON: () => "own toJSON" },
  { toJSON: "not a function", x: 1 },
  Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
  () => "function",
  Symbol("s"),
  [1, , 3],
  Object.assign([1, 2], { extra: "field" }),
  Items.from(["a", "b"]),
  Object.defineProperty({ a: 1 }, "toJSON", { value: () => "hidden toJSON", enumerable: false }),
  Uint8Array.from([1, 2]),
);
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.constant(undefined), odd);
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(key, tie("value"), { maxKeys: 5 }), tie("proto")),
  // An own "__proto__" key, as JSON.parse makes it.
  proto: fc.tuple(fc.oneof(text, fc.constant({ x: 1 }), fc.constant([1])), text).map(([inner, t]) => JSON.parse(`{"__proto__":${JSON.stringify(inner)},"t":${JSON.stringify(t)}}`)),
})).value;

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "system", "assistant"), content: text }),
  fc.record({ content: text, role: fc.constant("user"), cache_control: fc.constant({ type: "ephemeral" }) }),
  fc.record({ role: fc.constant("user"), content: fc.array(fc.record({ type: fc.constant("text"), text, cache_control: fc.option(fc.constant({ type: "ephemeral" }), { nil: undefined }) }), { maxLength: 3 }) }),
  fc.record({ role: fc.constant("assistant"), content: fc.option(text, { nil: null }), tool_calls: fc.array(fc.record({ id: text, type: fc.constant("function"), function: fc.record({ name: text, arguments: text }) }), { maxLength: 2 }) }),
  text.map((t) => ({ role: "system", content: `${PINS_HEADER}\n${t}` })),
  fc.dictionary(key, value, { maxKeys: 6 }),
  value,
) as fc.Arbitrary<Message>;

describe("canonical forms of generated odd data", () => {
  it("are the reference's, one message at a time and as lists (seeded)", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (messages) => {
        for (const m of messages) expect(canonicalMessage(m)).toBe(referenceForm(m));
        // A message is an object; anything else fails the pins check in both (as it always did).
        const objects = messages.filter((m) => typeof m === "object" && m !== null);
        expectReferenceForms(objects);
        for (const m of objects) expect(messageDigest(m)).toBe(referenceDigest(m));
      }),
      { seed: 43, numRuns: 4000 },
    );
  });

  it("fails where the reference fails (a bigint is not JSON)", () => {
    const m = { role: "user", content: "x", n: 1n } as unknown as Message;
    expect(() => referenceForm(m)).toThrow(TypeError);
    expect(() => canonicalMessage(m)).toThrow(TypeError);
  });

  it("follows a toJSON put on the shared prototypes, as the copy's objects do", () => {
    const m = { role: "user", content: [{ type: "text", text: "t" }] } as Message;
    for (const proto of [Object.prototype, Array.prototype] as object[]) {
      Object.defineProperty(proto, "toJSON", { value: () => "polluted", configurable: true, writable: true });
      try {
        expect(canonicalMessage(m)).toBe(referenceForm(m));
        expect(messageDigest(m)).toBe(referenceDigest(m));
      } finally {
        delete (proto as { toJSON?: unknown }).toJSON;
      }
    }
  });

  it("keeps the reference for long forms (past the scratch buffer) and many-byte text", () => {
    const long = [
      { role: "user", content: "x".repeat(30_000) },
      { role: "user", content: "\u4e2d".repeat(21_000) },
      { role: "assistant", content: "😀".repeat(12_000) + "\uD800" },
    ] as Message[];
    expectReferenceForms(long);
  });
});
