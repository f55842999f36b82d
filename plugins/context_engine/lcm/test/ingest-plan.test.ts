import fc from "fast-check";
import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { encodeMessage } from "../src/store/codec.js";
import { HashMemo } from "../src/store/hash-memo.js";
import { IngestInputs } from "../src/store/ingest-inputs.js";
import { ingestResult, planIngest, runPlanSync, turnKey, type IngestNeed, type IngestPlan, type StoredRef } from "../src/store/ingest-plan.js";
import { createRedactor } from "../src/redact/redactor.js";
import type { IngestOptions, WriterPosition } from "../src/store/types.js";

const redactor = createRedactor(false);
const user = (content: string): Message => ({ role: "user", content });
const asst = (content: string): Message => ({ role: "assistant", content });
const sys = (content: string): Message => ({ role: "system", content });
const call = (id: string, args = "{}"): Message =>
  ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "status", arguments: args } }] }) as Message;
const result = (id: string, content: string): Message => ({ role: "tool", tool_call_id: id, content });

/** An in-memory stored history (ids 1000 + seq) and its keys, answering what a plan asks as a driver would. */
class Memory {
  readonly messages: Message[] = [];
  /** Whether this writer stored what the memory holds (its own ids are "seen"), or someone else did. */
  own = true;
  readonly ownIds = { has: (id: number) => this.own && id >= 1000 && id < 1000 + this.messages.length };
  readonly keys = new Map<string, number | null>();
  readonly positions: WriterPosition[] = [];
  answer(need: IngestNeed): unknown {
    if (need.kind === "keys") return new Map(need.keys.filter((k) => this.keys.has(k)).map((k) => [k, this.keys.get(k)!]));
    if (need.kind === "positions") return this.positions.slice(0, need.limit);
    if (need.kind === "atSeq") {
      const m = this.messages[need.seq];
      return m ? { id: 1000 + need.seq, seq: need.seq, hash: encodeMessage(m, redactor).hashHex } : null;
    }
    if (need.kind === "complete-import") throw new Error("no import in this test");
    const refs = this.messages.map((m, seq): StoredRef => ({ id: 1000 + seq, seq, hash: encodeMessage(m, redactor)[need.kind === "hashes" ? "hashHex" : "looseHex"] }));
    if (need.kind === "hashes") return refs.filter((r) => need.hashes.has(r.hash));
    return refs.filter((r) => r.seq > need.afterSeq && r.seq < need.beforeSeq).slice(0, need.limit);
  }
}

function plan(messages: readonly Message[], memory: Memory, options: IngestOptions = {}): IngestPlan {
  const inputs = new IngestInputs(messages, options.isSynthetic, { encode: (m) => encodeMessage(m, redactor) });
  return runPlanSync(planIngest(inputs, { seenIds: memory.ownIds, ...options }, memory.messages.length), (need) => memory.answer(need));
}

/** Store what a plan appends, as a driver would (keys included). */
function apply(memory: Memory, messages: readonly Message[], options: IngestOptions = {}): IngestPlan {
  const p = plan(messages, memory, options);
  const ids: number[] = [];
  for (const a of p.append) {
    ids.push(1000 + memory.messages.length);
    memory.messages.push(messages[a.index]!);
  }
  if (p.position) memory.positions.unshift(p.position);
  if (p.newTurnKey) memory.keys.set(p.newTurnKey, ids.at(-1) ?? null);
  p.append.forEach((a, j) => {
    const k = p.newMessageKeys.get(a.index);
    if (k) memory.keys.set(k, ids[j]!);
  });
  return p;
}

/** A store that holds `messages`, as this writer's earlier ingest left it (its position recorded). */
const memoryOf = (messages: readonly Message[]): Memory => {
  const m = new Memory();
  apply(m, messages);
  return m;
};

/** A store that holds `messages` written by someone else (no position of this writer's list). */
const foreignOf = (messages: readonly Message[]): Memory => {
  const m = new Memory();
  m.own = false;
  m.messages.push(...messages);
  return m;
};

// A small alphabet, so repeats (the same text, the same tool round, empty results) are frequent.
const repeated = fc.constantFrom(user("continue"), user("ok"), user(""), asst("done"), asst("working"), call("c1"), result("c1", "busy"), result("c1", ""));
const history = fc.array(repeated, { maxLength: 60 });

describe("ingest plan: reconciling a whole list", () => {
  it("stores exactly what follows the stored history, whatever repeats it holds (property)", () => {
    fc.assert(
      fc.property(history, fc.array(repeated, { minLength: 1, maxLength: 8 }), fc.boolean(), (stored, fresh, withSystem) => {
        const old = [...(withSystem ? [sys("S")] : []), ...stored];
        const p = plan([...old, ...fresh], memoryOf(old));
        expect(p.append.map((a) => a.index)).toEqual(fresh.map((_, i) => old.length + i));
        expect(p.alignment).toBe(old.length ? "position" : "empty-store");
        expect(p.disagreed).toBe(0);
        p.ids.forEach((id, i) => expect(id).toBe(1000 + i));
      }),
      { numRuns: 300 },
    );
  });

  it("stores a transcript sent turn after turn exactly once, and a list behind the store adds nothing (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.array(repeated, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 15 }), fc.nat(), (turns, cut) => {
        const transcript: Message[] = [sys("S")];
        const memory = new Memory();
        for (const turn of turns) {
          transcript.push(...turn);
          apply(memory, transcript);
          expect(plan(transcript, memory).append).toEqual([]);
        }
        expect(memory.messages).toEqual(transcript);
        expect(plan(transcript.slice(0, cut % transcript.length), memory).append).toEqual([]);
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
        const p = plan([old[0]!, summary, ...old.slice(old.length - keep), ...fresh], memoryOf(old), { isSynthetic: (m) => m === summary });
        expect(p.append.map((a) => (a.encoded.message as { content: string }).content)).toEqual(fresh.map((m) => m.content));
        expect(p.synthetic).toBeLessThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });

  it("keeps two identical messages in a row apart, at the start and after a long repeat", () => {
    expect(plan([user("continue"), user("continue")], memoryOf([user("continue")])).append.map((a) => a.index)).toEqual([1]);
    // Inside a keyed turn, another writer's equal short message proves nothing: stored again.
    expect(plan([user("continue"), user("continue"), user("go on")], foreignOf([user("continue")]), { key: "t1" }).append.map((a) => a.index)).toEqual([0, 1, 2]);
    const fourth = [sys("S"), user("continue"), user("continue"), user("continue")];
    expect(plan([...fourth, user("continue")], memoryOf(fourth)).append.map((a) => a.index)).toEqual([4]);
  });

  it("never skips a message the store does not hold, even where an equal empty message sits at the same place", () => {
    // Another writer stored its turn; this writer's list lacks it and carries an empty message with the same hash.
    const memory = foreignOf([user("what does the config say?"), asst("it sets the port to 8080"), user("q2 from the cli"), user(""), asst("a2")]);
    const list = [user("what does the config say?"), asst("it sets the port to 8080"), user("q3"), call("t1"), user(""), result("t1", "data"), asst("a3")];
    // The gateway's turn, delivered with OpenClaw's commit key.
    const p = plan(list, memory, { key: "commit-7", keyFrom: 2 });
    expect(p.append.map((a) => a.index)).toEqual([2, 3, 4, 5, 6]);
  });

  it("recognises a turn whose tool-call ids the host rewrote, and stores nothing of it again", () => {
    const turn = [user("read it"), call("call_10", '{"p":1}'), result("call_10", "file body"), asst("done")];
    const memory = foreignOf([sys("You are a careful coding agent."), user("before"), ...turn]);
    const rewritten = [sys("You are a careful coding agent."), user("[host summary of before]"), user("read it"), call("call10", '{"p":1}'), result("call10", "file body"), asst("done"), user("next")];
    const p = plan(rewritten, memory);
    expect(p.append.map((a) => a.index)).toEqual([1, 6]);
  });

  it("stores a new tool call with its results, even when an equal result is stored from an earlier round", () => {
    const memory = foreignOf([user("poll the build until it is done"), call("c1"), result("c1", "busy")]);
    const list = [user("poll the build until it is done"), call("c9", '{"again":true}'), result("c9", "busy"), asst("ok")];
    const p = plan(list, memory);
    expect(p.append.map((a) => a.index)).toEqual([1, 2, 3]);
  });

  it("counts what it stored out of the list's order", () => {
    const p = plan([user("new first"), user("a stored message that says something")], foreignOf([user("a stored message that says something")]));
    expect(p.append.map((a) => a.index)).toEqual([0]);
    expect(p.disagreed).toBe(1);
  });
});

describe("ingest plan: writer positions and keys", () => {
  it("looks only past a position that holds, and reconciles when it does not", () => {
    const memory = new Memory();
    const list = [sys("S"), user("a"), asst("b")];
    const first = apply(memory, list);
    const fp = (m: Message) => encodeMessage(m, redactor).hashHex;
    expect(first.position!.index).toBe(2);
    expect(first.position!.fingerprint.startsWith(`${fp(asst("b"))}:${fp(user("a"))}:`)).toBe(true);
    const grown = [...list, user("c")];
    const held = apply(memory, grown, { positions: [first.position!] });
    expect(held).toMatchObject({ alignment: "position", alreadyStored: 3 });
    expect(held.append.map((a) => a.index)).toEqual([3]);
    // The host rewrote the list: the position no longer holds, and nothing already stored is stored again.
    const rewritten = [sys("S"), asst("b"), user("c"), user("d")];
    const again = apply(memory, rewritten, { positions: [held.position!] });
    expect(again.alignment).toBe("reconciled");
    expect(again.append.map((a) => a.index)).toEqual([3]);
    expect(memory.messages).toEqual([sys("S"), user("a"), asst("b"), user("c"), user("d")]);
  });

  it("past a held position, takes what the same host stored since as a named turn for stored (OpenClaw's gateway)", () => {
    const memory = new Memory();
    const note = sys("<lcm_context>turns 0 to 4</lcm_context>");
    const said = (i: number) => user(`Remember fact-${i}. The harbour master logged the tides and the ferries.`);
    const history = [said(5), asst("Noted 5"), said(6), asst("Noted 6")];
    memory.messages.push(...history);
    // The engine's own list (a note, then stored messages) ends with the newest stored message: a position.
    const view = [note, ...history];
    const first = apply(memory, view, { isSynthetic: (m) => m === note, mode: "stored" });
    expect(first.position).not.toBeNull();
    // OpenClaw commits turn 7 as a named turn; the next assemble's list is that view plus turn 7.
    const turn7 = [said(7), asst("Noted 7")];
    apply(memory, [...history, ...turn7], { key: "turn-7", keyFrom: history.length });
    const next = apply(memory, [...view, ...turn7], { isSynthetic: (m) => m === note, positions: [first.position!] });
    expect(next).toMatchObject({ alignment: "position", append: [] });
    expect([next.ids.get(5), next.ids.get(6)]).toEqual([1004, 1005]);
    expect(memory.messages).toHaveLength(6);
    // A host that says the same thing again after the position: new, it is not next to the position in the store.
    const repeat = apply(memory, [...view, ...turn7, ...turn7], { isSynthetic: (m) => m === note, positions: [next.position!] });
    expect(repeat.append.map((a) => a.index)).toEqual([7, 8]);
  });

  it("marks a position the store records as its newest already (a list with nothing new), and only that one", () => {
    const list = [sys("prompt"), user("fix the build"), asst("on it")];
    const memory = memoryOf(list);
    const again = plan(list.map((m) => ({ ...m })), memory);
    expect(again.append).toEqual([]);
    expect(again.position?.fingerprint).toBe(memory.positions[0]!.fingerprint);
    expect(again.positionRecorded).toBe(true);
    // One more message: a new position, to be written.
    const longer = plan([...list, user("and the tests")], memory);
    expect(longer.append.map((a) => a.index)).toEqual([3]);
    expect(longer.positionRecorded).toBe(false);
  });

  it("stores a keyed turn once, however often it is delivered", () => {
    const memory = new Memory();
    const turn = [user("hi"), asst("hello")];
    apply(memory, turn, { key: "turn-1" });
    expect(memory.keys.has(turnKey("turn-1"))).toBe(true);
    const again = apply(memory, turn, { key: "turn-1", mode: "append" });
    expect(again).toMatchObject({ duplicateTurn: true, append: [] });
    const next = apply(memory, [...turn, user("hi"), asst("hello")], { key: "turn-2", keyFrom: 2 });
    expect(next.append.map((a) => a.index)).toEqual([2, 3]);
  });

  it("skips messages whose host ids are stored", () => {
    const memory = new Memory();
    apply(memory, [user("a"), asst("b")], { mode: "append", messageKeys: ["u1", "a1"] });
    const p = apply(memory, [user("a"), asst("b"), user("c")], { mode: "append", messageKeys: ["u1", "a1", "u2"] });
    expect(p.append.map((a) => a.index)).toEqual([2]);
    expect([p.ids.get(0), p.ids.get(1)]).toEqual([1000, 1001]);
  });

  it("classifies synthetic and rejected inputs and appends everything in append mode", () => {
    const synthetic = user("[recall]");
    const messages = [user("a"), 42 as unknown as Message, synthetic, { role: "wizard", content: "x" } as unknown as Message, asst("b")];
    const p = plan(messages, memoryOf([user("a")]), { mode: "append", isSynthetic: (m) => m === synthetic });
    expect(p).toMatchObject({ alignment: "append", synthetic: 1 });
    expect(p.append.map((a) => a.index)).toEqual([0, 4]);
    expect(p.rejected.map((r) => r.index)).toEqual([1, 3]);
    const r = ingestResult(7, p, [11, 12], 5, messages.length);
    expect(r).toMatchObject({ conversationId: 7, appended: 2, firstSeq: 5, lastSeq: 6, ids: [11, null, null, null, 12] });
  });

  it("reads a turn's host ids from where the turn starts, without an array the length of the list", () => {
    const memory = memoryOf([user("a"), asst("b")]);
    memory.keys.set("m:u2", 1001);
    const p = plan([user("a"), asst("b"), user("c"), asst("d")], memory, { mode: "append", messageKeys: ["u2", "a2"], messageKeysFrom: 2 });
    // Input 2's id is stored (kept already); input 3's id is new and recorded with it.
    expect(p.append.map((a) => a.index)).toEqual([0, 1, 3]);
    expect([...p.newMessageKeys]).toEqual([[3, "m:a2"]]);
  });

  it("verifies a held position on fresh copies of a long list by encoding only what follows it", () => {
    const memo = new HashMemo();
    let encodes = 0;
    const inputsOf = (list: readonly Message[]) =>
      new IngestInputs(list, undefined, { encode: (m) => (encodes++, encodeMessage(m, redactor)), memo });
    const memory = new Memory();
    const history = Array.from({ length: 500 }, (_, i) => (i % 2 ? asst(`answer ${i}`) : user(`question ${i}`)));
    const first = runPlanSync(planIngest(inputsOf(history), { mode: "append" }, 0), (need) => memory.answer(need));
    memory.messages.push(...history);
    memory.positions.unshift(first.position!);
    encodes = 0;
    // The host hands over a structured copy of everything plus one new turn, as hosts that copy their lists do.
    const next = [...structuredClone(history), user("new question"), asst("new answer")];
    const p = runPlanSync(planIngest(inputsOf(next), { seenIds: memory.ownIds }, memory.messages.length), (need) => memory.answer(need));
    expect(p.append.map((a) => a.index)).toEqual([500, 501]);
    // The two new messages, nothing of the 500 before them (the position's messages come from the memo).
    expect(encodes).toBe(2);
  });
});
