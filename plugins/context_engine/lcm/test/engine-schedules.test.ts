import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { testStore, TEST_STORE } from "./engine-setup.js";

/**
 * Every message once, whatever the hosts do (issue 33): several writers on one
 * conversation (each an engine instance on one store, as separate processes
 * would be), through the public hooks only, on random schedules of
 * interleaved turns, stale lists, a host's own compaction that rewrites its
 * list and its tool-call ids, restarts between and inside turns, a crash
 * after commit with re-delivery, and messages that repeat or are empty.
 * Writers are of two kinds: hosts that name their turns (`turnId` +
 * `turnMessages`, like ours and OpenClaw) and hosts that only send lists.
 */

const cleanups: Array<() => Promise<void>> = [];
// Closing three engines and dropping a PostgreSQL schema can take more than the default 10 s on a loaded machine.
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
}, 120_000);

type Op =
  | { op: "turn"; w: number; tools: number; emptyResult: boolean; repeat: number; toolCallIngest: boolean }
  | { op: "stale"; w: number; cut: number }
  | { op: "hostCompact"; w: number; keepTurns: number }
  | { op: "restart"; w: number }
  | { op: "redeliver"; w: number }
  | { op: "crashInTurn"; w: number; tools: number };

const WRITERS = 3;
const w = fc.integer({ min: 0, max: WRITERS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant("turn" as const), w, tools: fc.integer({ min: 0, max: 2 }), emptyResult: fc.boolean(), repeat: fc.integer({ min: 0, max: 5 }), toolCallIngest: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("stale" as const), w, cut: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("hostCompact" as const), w, keepTurns: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("restart" as const), w }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("redeliver" as const), w }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("crashInTurn" as const), w, tools: fc.integer({ min: 1, max: 2 }) }) },
);

const withoutHostCompaction = opArb.filter((op) => op.op !== "hostCompact");
/** Every kind of step, with turns whose messages all say something (no short repeats). */
const tellingOnly = opArb.map((op): Op => (op.op === "turn" ? { ...op, repeat: 0 } : op));

/** Short texts that repeat across turns and writers ("continue", "", "ok"), or a unique one. */
const REPEATS = ["continue", "", "ok", "continue", "yes"];

interface Writer {
  engine: LcmEngine;
  keyed: boolean;
  list: Message[];
  /** Messages this writer's host created, in order (what must be stored once, in this order). */
  own: Message[];
  /** Turn boundaries in `list` (index of each turn's first message), for the host's compaction. */
  turnStarts: number[];
  last: { id: string; messages: Message[]; list: Message[] } | null;
  turns: number;
  /** The host's own summaries not yet shown to the engine (a later compaction may drop one unseen). */
  unseen: Message[];
}

/** Summaries a list shows the engine become what must be stored (in the order they were made). */
function show(x: Writer, list: readonly Message[]): void {
  const shown = x.unseen.filter((m) => list.includes(m));
  x.own.push(...shown);
  x.unseen = x.unseen.filter((m) => !shown.includes(m));
}

/** What identifies a message whatever ids the host gave its tool calls. */
function canonical(m: Message): string {
  const r = m as { role: string; content: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> };
  return JSON.stringify([r.role, r.content, r.tool_calls?.map((c) => [c.function.name, c.function.arguments]) ?? null]);
}

function count(list: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function isSubsequence(needle: readonly string[], hay: readonly string[]): boolean {
  let i = 0;
  for (const h of hay) if (i < needle.length && h === needle[i]) i++;
  return i === needle.length;
}

async function runSchedule(ops: Op[], seed: number, keyed: readonly boolean[] = [true, true, true]): Promise<void> {
  const store = testStore();
  const open = (): LcmEngine =>
    new LcmEngine({ dataDir: store.dataDir, contextLength: 1_000_000, config: { ...store.config, prepare_in_background: false } });
  const writers: Writer[] = keyed.map((k, i) => ({
    engine: open(),
    keyed: k,
    list: [{ role: "system", content: `writer ${i}` }],
    own: [],
    turnStarts: [],
    last: null,
    turns: 0,
    unseen: [],
  }));
  cleanups.push(async () => {
    for (const x of writers) await x.engine.close();
    await store.cleanup();
  });
  let n = 0;
  // Short texts repeat within a writer's own history; across writers they differ (see the README: two
  // writers' equal short messages are told apart only inside turns a host names).
  let writer = 0;
  const text = (repeat: number) => {
    if (repeat === 0) return `unique text ${seed}-${n++} about step ${n}`;
    const r = REPEATS[(repeat + seed) % REPEATS.length]!;
    return writer === 0 ? r : `${r}${" ".repeat(writer)}`;
  };

  const makeTurn = (x: Writer, i: number, tools: number, emptyResult: boolean, repeat: number): Message[] => {
    const msgs: Message[] = [{ role: "user", content: text(repeat) }];
    for (let t = 0; t < tools; t++) {
      const id = `call_${i}_${x.turns}_${t}`;
      msgs.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "run", arguments: `{"n":${n++}}` } }] });
      msgs.push({ role: "tool", tool_call_id: id, content: emptyResult ? "" : text(repeat > 2 ? 1 : 0) });
    }
    msgs.push({ role: "assistant", content: text(repeat > 3 ? 2 : 0) });
    return msgs;
  };

  const complete = async (x: Writer, turnId: string, turn: Message[]) => {
    const meta = x.keyed ? { sessionId: "shared", turnId, turnMessages: turn } : { sessionId: "shared" };
    await x.engine.onTurnComplete(x.list.slice(), null, meta);
    x.last = { id: turnId, messages: turn, list: x.list.slice() };
  };

  for (const op of ops) {
    writer = op.w % writers.length;
    const x = writers[writer]!;
    if (op.op === "turn" || op.op === "crashInTurn") {
      const turn = makeTurn(x, op.w, op.tools, op.op === "turn" ? op.emptyResult : false, op.op === "turn" ? op.repeat : 0);
      x.turns++;
      x.turnStarts.push(x.list.length);
      const turnId = `w${op.w}-t${x.turns}`;
      const partial = [...x.list, ...turn.slice(0, 2)];
      show(x, x.list);
      if (op.op === "crashInTurn" || op.toolCallIngest) {
        // A tool call mid-turn shows the engine the list so far (the turn's user message and first call).
        await x.engine.handleToolCall("lcm_describe", {}, { sessionId: "shared", messages: partial });
      }
      if (op.op === "crashInTurn") {
        // The process dies mid-turn; the host re-runs the turn in a new one.
        await x.engine.close();
        x.engine = open();
      }
      x.list.push(...turn);
      x.own.push(...turn);
      await complete(x, turnId, turn);
    } else if (op.op === "stale") {
      show(x, x.list.slice(0, op.cut % x.list.length));
      await x.engine.onTurnComplete(x.list.slice(0, op.cut % x.list.length), null, { sessionId: "shared" });
    } else if (op.op === "hostCompact") {
      if (x.turnStarts.length <= op.keepTurns) continue;
      const keepFrom = x.turnStarts[x.turnStarts.length - op.keepTurns]!;
      const summary: Message = { role: "user", content: `[host summary ${op.w}-${n++}] What happened so far: the user asked for several steps and they were done.` };
      // The host renames its tool-call ids as it rewrites the list (call_1_2_0 -> call120).
      const kept = x.list.slice(keepFrom).map((m) => JSON.parse(JSON.stringify(m).replace(/call_(\d+)_(\d+)_(\d+)/g, "call$1$2$3")) as Message);
      x.list = [x.list[0]!, summary, ...kept];
      x.unseen.push(summary);
      x.turnStarts = x.turnStarts.slice(-op.keepTurns).map((s) => s - keepFrom + 2);
    } else if (op.op === "restart") {
      await x.engine.close();
      x.engine = open();
    } else if (op.op === "redeliver" && x.last) {
      // The host crashed after the commit and delivers the same turn again, from a new process.
      await x.engine.close();
      x.engine = open();
      const meta = x.keyed ? { sessionId: "shared", turnId: x.last.id, turnMessages: x.last.messages } : { sessionId: "shared" };
      await x.engine.onTurnComplete(x.last.list, null, meta);
    }
  }

  // Each host ends its session with its list as it is (what it rewrote last reaches the engine there).
  for (const x of writers) {
    show(x, x.list);
    await x.engine.onSessionEnd("shared", x.list.slice());
  }
  const engine = writers[0]!.engine;
  const conv = await engine.store.findConversation("shared");
  const stored = conv ? (await engine.store.getMessages(conv.id)).map((m) => m.message) : [];
  // Every message once: the stored multiset is exactly what the hosts created.
  const expected = count(writers.flatMap((x) => x.own.map(canonical)));
  const got = count(stored.map(canonical));
  for (const c of new Set([...expected.keys(), ...got.keys()])) expect({ message: c, stored: got.get(c) ?? 0 }).toEqual({ message: c, stored: expected.get(c) ?? 0 });
  // Each writer's own order is kept.
  const storedCanon = stored.map(canonical);
  for (const x of writers) expect(isSubsequence(x.own.map(canonical), storedCanon)).toBe(true);
  // Tool rounds are whole: every result follows its call, every call has its result.
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const m of stored) {
    const r = m as { role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string };
    for (const c of r.tool_calls ?? []) calls.add(c.id);
    if (r.role === "tool") {
      expect(calls.has(r.tool_call_id!)).toBe(true);
      answered.add(r.tool_call_id!);
    }
  }
  expect([...calls].filter((c) => !answered.has(c))).toEqual([]);
}

const runs = (postgres: number, sqlite: number) => Number(process.env.LCM_SCHEDULE_RUNS ?? (TEST_STORE === "postgres" ? postgres : sqlite));
/** CI replays fixed schedules (a regression guard); `LCM_SCHEDULE_SEED=random` explores new ones. */
const seedOption = process.env.LCM_SCHEDULE_SEED === "random" ? {} : { seed: Number(process.env.LCM_SCHEDULE_SEED ?? 7) };

/** Counterexamples random runs found, replayed every time (shrunk). */
const turn = (repeat: number, toolCallIngest = false): Op => ({ op: "turn", w: 0, tools: 0, emptyResult: false, repeat, toolCallIngest });
const FOUND: Array<[Op[], number]> = [
  // A host compaction keeps a turn of short repeats; a mid-turn list then matched its repeats to the older
  // turn's copies and stored the turn's answer ahead of its request.
  [[turn(4), turn(4), { op: "hostCompact", w: 0, keepTurns: 1 }, turn(2, true), turn(0), turn(0)], 1],
];

describe(`every message once across writers, restarts and host rewrites (${TEST_STORE})`, () => {
  it("three hosts that name their turns on one conversation, each compacting and rewriting its own list, restarting and re-delivering: every message once, tool rounds whole, each writer's order kept (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 40 }), fc.integer({ min: 0, max: 1_000 }), (ops, seed) => runSchedule(ops, seed)),
      { numRuns: runs(10, 30), examples: FOUND, ...seedOption },
    );
  }, 240_000);

  // A host that sends only whole lists gives no identity: it is one writer per conversation (README, "Every message once").
  it("a host that sends only lists, across restarts, crashes and stale lists: every message once (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(withoutHostCompaction, { minLength: 4, maxLength: 40 }), fc.integer({ min: 0, max: 1_000 }), (ops, seed) => runSchedule(ops, seed, [false])),
      { numRuns: runs(10, 30), ...seedOption },
    );
  }, 240_000);

  // Its own compaction too, as long as what it keeps says something: short repeats ("ok", "continue") kept
  // by a list-only host's rewrite cannot be told from new ones (README: name turns).
  it("a host that sends only lists and compacts its own list, with telling messages: every message once (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tellingOnly, { minLength: 4, maxLength: 40 }), fc.integer({ min: 0, max: 1_000 }), (ops, seed) => runSchedule(ops, seed, [false])),
      { numRuns: runs(6, 20), ...seedOption },
    );
  }, 240_000);
});
