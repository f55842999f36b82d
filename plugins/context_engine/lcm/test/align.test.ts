import fc from "fast-check";
import type { Message } from "@context-engine/core";
import { afterAll, describe, expect, it } from "vitest";
import { asst, sys, tempStore, user } from "./helpers.js";

const t = tempStore({ redaction: false });
afterAll(() => t.cleanup());
let sessions = 0;

// Users repeat themselves ("continue"); assistant replies are unique, as real ones are.
const turn = fc.tuple(fc.constantFrom("continue", "yes", "ok", "go on", "unique"), fc.nat(1_000_000));
const transcript = fc.array(turn, { minLength: 1, maxLength: 25 });

function build(turns: Array<[string, number]>, offset: number): Message[] {
  const out: Message[] = [];
  turns.forEach(([u, n], i) => {
    out.push(user(u === "unique" ? `question ${offset + i}-${n}` : u));
    out.push(asst(`answer ${offset + i}-${n}`));
  });
  return out;
}

const SUMMARY = "[LCM summary of earlier messages]";
const isSynthetic = (m: Message) => m.content === SUMMARY;
const texts = (conv: number) => t.store.getMessages(conv).map((m) => m.message.content);

describe("alignment (property)", () => {
  it("stores exactly the new messages, whatever the host kept of the old ones", () => {
    fc.assert(
      fc.property(transcript, transcript, fc.nat(), fc.boolean(), (oldTurns, newTurns, keepSeed, withSystem) => {
        const conv = t.store.conversation(`p${sessions++}`).id;
        const old = [sys("S"), ...build(oldTurns, 0)];
        const fresh = build(newTurns, 1000);
        t.store.ingest(conv, old);
        // The host list after a compaction: system, a summary, the last k old messages, then the new turn.
        const keep = 1 + (keepSeed % (old.length - 1));
        const compacted = [...(withSystem ? [old[0]!] : []), user(SUMMARY), ...old.slice(old.length - keep), ...fresh];
        const r = t.store.ingest(conv, compacted, { isSynthetic });
        expect(r.appended).toBe(fresh.length);
        expect(texts(conv)).toEqual([...old, ...fresh].map((m) => m.content));
        // and again: nothing more
        expect(t.store.ingest(conv, compacted, { isSynthetic }).appended).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("stores a growing transcript once, turn after turn", () => {
    fc.assert(
      fc.property(transcript, (turns) => {
        const conv = t.store.conversation(`g${sessions++}`).id;
        const all = [sys("S"), ...build(turns, 0)];
        for (let i = 1; i <= all.length; i += 2) t.store.ingest(conv, all.slice(0, i));
        t.store.ingest(conv, all);
        expect(texts(conv)).toEqual(all.map((m) => m.content));
      }),
      { numRuns: 100 },
    );
  });
});
