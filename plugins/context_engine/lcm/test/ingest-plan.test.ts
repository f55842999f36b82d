import fc from "fast-check";
import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { encodeMessage } from "../src/store/codec.js";
import { IngestInputs, ingestResult, planIngest, type IngestPlan, type NeedKnownHashes, type StoredView } from "../src/store/ingest-plan.js";
import { createRedactor } from "../src/redact/redactor.js";
import type { IngestOptions } from "../src/store/types.js";

const redactor = createRedactor(false);
const hashOf = (m: Message) => encodeMessage(m, redactor).hashHex;
const user = (content: string): Message => ({ role: "user", content });
const asst = (content: string): Message => ({ role: "assistant", content });
const sys = (content: string): Message => ({ role: "system", content });
const call = (id: string): Message => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "status", arguments: "{}" } }] }) as Message;
const result = (id: string, content: string): Message => ({ role: "tool", tool_call_id: id, content });

/** An in-memory stored history: ids 1000 + seq. `withKnown: false` leaves out `knownId`, as PostgreSQL's first pass does. */
function storedOf(history: readonly Message[], withKnown = true): StoredView {
  const hashes = history.map(hashOf);
  const view: StoredView = {
    count: history.length,
    tail: (k) => (k < history.length ? { id: 1000 + history.length - 1 - k, hash: hashes[history.length - 1 - k]! } : null),
  };
  if (withKnown) view.knownId = (h) => (hashes.lastIndexOf(h) >= 0 ? 1000 + hashes.lastIndexOf(h) : null);
  return view;
}

function plan(messages: readonly Message[], history: readonly Message[], options: IngestOptions = {}): IngestPlan {
  const inputs = new IngestInputs(messages, options.isSynthetic, { encode: (m, _i, s) => encodeMessage(m, redactor, s) });
  const p = planIngest(inputs, storedOf(history), options.mode);
  if ("needKnownHashes" in p) throw new Error("unexpected");
  return p;
}

/** Store what a plan appends, as a driver would. */
function apply(history: Message[], messages: readonly Message[], options: IngestOptions = {}): IngestPlan {
  const p = plan(messages, history, options);
  for (const a of p.append) history.push(messages[a.index]!);
  return p;
}

// A small alphabet, so repeats (the same text, the same tool round) are frequent.
const repeated = fc.constantFrom(user("continue"), user("ok"), asst("done"), asst("working"), call("c1"), result("c1", "busy"));
const history = fc.array(repeated, { maxLength: 60 });

describe("ingest plan", () => {
  it("aligns a whole transcript on its stored prefix, whatever repeats it holds (property)", () => {
    fc.assert(
      fc.property(history, fc.array(repeated, { minLength: 1, maxLength: 8 }), fc.boolean(), (stored, fresh, withSystem) => {
        const old = [...(withSystem ? [sys("S")] : []), ...stored];
        const p = plan([...old, ...fresh], old);
        expect(p.start).toBe(old.length);
        expect(p.append.map((a) => a.index)).toEqual(fresh.map((_, i) => old.length + i));
        expect(p.alignment).toBe(old.length ? "anchored" : "empty-store");
        // Every mapped id is the stored id of that very position.
        p.ids.forEach((id, i) => {
          if (id !== null) expect(id).toBe(1000 + i);
        });
      }),
      { numRuns: 400 },
    );
  });

  it("stores a transcript sent turn after turn exactly once, repeats included (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.array(repeated, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 15 }), (turns) => {
        const transcript: Message[] = [sys("S")];
        const stored: Message[] = [];
        for (const turn of turns) {
          transcript.push(...turn);
          apply(stored, transcript);
          // A retry of the same list stores nothing.
          expect(plan(transcript, stored).append).toEqual([]);
        }
        expect(stored).toEqual(transcript);
      }),
      { numRuns: 200 },
    );
  });

  it("stores only the new messages after an engine compaction (a synthetic summary, then a kept tail)", () => {
    fc.assert(
      fc.property(history, fc.nat(), fc.integer({ min: 1, max: 5 }), (stored, keepSeed, newCount) => {
        const old = [sys("S"), ...stored, user("last question"), asst("last answer")];
        const keep = 1 + (keepSeed % (old.length - 1));
        const fresh = Array.from({ length: newCount }, (_, i) => user(`new ${i}`));
        const summary = user("[summary]");
        const p = plan([old[0]!, summary, ...old.slice(old.length - keep), ...fresh], old, { isSynthetic: (m) => m === summary });
        expect(p.append.map((a) => (a.encoded.message as { content: string }).content)).toEqual(fresh.map((m) => m.content));
        expect(p.synthetic).toBe(1);
      }),
      { numRuns: 200 },
    );
  });

  it("keeps two identical messages in a row apart, at the start and after a long repeat", () => {
    expect(plan([user("continue"), user("continue")], [user("continue")]).append.map((a) => a.index)).toEqual([1]);
    const fourth = [sys("S"), user("continue"), user("continue"), user("continue")];
    expect(plan([...fourth, user("continue")], fourth).append.map((a) => a.index)).toEqual([4]);
  });

  it("falls back to the last known hash, asking a driver without them for the inputs' hashes first", () => {
    const old = [sys("S"), user("a"), asst("b"), user("c"), asst("d")];
    // The host rewrote the transcript: no anchor (the last stored message is not in it), but "b" is known.
    const messages = [user("x"), asst("b"), user("new")];
    const inputs = new IngestInputs(messages, undefined, { encode: (m, _i, s) => encodeMessage(m, redactor, s) });
    const first = planIngest(inputs, storedOf(old, false));
    expect((first as NeedKnownHashes).needKnownHashes.sort()).toEqual([hashOf(messages[0]!), hashOf(messages[1]!), hashOf(messages[2]!)].sort());
    const second = planIngest(inputs, storedOf(old)) as IngestPlan;
    expect(second).toMatchObject({ alignment: "hash-fallback", start: 2, alreadyStored: 1 });
    expect(second.ids).toEqual([null, 1002, null]);
    expect(plan([user("x"), user("y")], old)).toMatchObject({ alignment: "no-overlap", start: 0 });
  });

  it("classifies synthetic and rejected inputs and appends everything in append mode", () => {
    const synthetic = user("[recall]");
    const messages = [user("a"), 42 as unknown as Message, synthetic, { role: "wizard", content: "x" } as unknown as Message, asst("b")];
    const p = plan(messages, [user("a")], { mode: "append", isSynthetic: (m) => m === synthetic });
    expect(p).toMatchObject({ alignment: "append", start: 0, synthetic: 1 });
    expect(p.append.map((a) => a.index)).toEqual([0, 4]);
    expect(p.rejected.map((r) => r.index)).toEqual([1, 3]);
    const r = ingestResult(7, p, [11, 12], 5);
    expect(r).toMatchObject({ conversationId: 7, appended: 2, firstSeq: 5, lastSeq: 6, ids: [11, null, null, null, 12] });
  });
});
