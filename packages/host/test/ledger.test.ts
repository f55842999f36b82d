import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { Message } from "@context-engine/core";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalLedgerMessage, isPinsBlock, messageDigest } from "../src/index.js";
import type { LedgerCompaction } from "../src/index.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function chat(turns: number, tag: string): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ role: "user", content: `${tag} question ${i}: ${"words about the topic ".repeat(20)}` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `${tag}_call_${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `f${i}.ts` }) } }],
    });
    out.push({ role: "tool", tool_call_id: `${tag}_call_${i}`, content: `contents of f${i}.ts ${"line\n".repeat(30)}` });
    out.push({ role: "assistant", content: `${tag} answer ${i}.` });
  }
  return out;
}

/** Messages of `a` with no counterpart in `b` (equal messages matched one to one). */
function multisetMinus(a: readonly Message[], b: readonly Message[]): Message[] {
  const pool = b.map(canonicalLedgerMessage);
  return a.filter((m) => {
    const at = pool.indexOf(canonicalLedgerMessage(m));
    if (at < 0) return true;
    pool.splice(at, 1);
    return false;
  });
}

const sorted = (messages: readonly Message[]) => messages.map(canonicalLedgerMessage).sort();
const strip = (messages: readonly Message[]) => messages.map((m) => JSON.parse(canonicalLedgerMessage(m)) as Message);
const agentRequests = () => server.requests.filter((r) => r.body.model === "test-model");

function open(dir?: string, contextLength = 200_000) {
  const engine = new ContextCompressor({ contextLength, model: "test-model", config: { protect_last_n: 4 } });
  const made = makeHost(server, { engine, tools: [{ name: "read_file", parameters: { type: "object" } }], executeTool: () => "ok" });
  const session = made.host.openSession({
    sessionId: "ledger-chat",
    model: "test-model",
    contextLength,
    systemPrompt: "You are a coding agent.",
    history: chat(10, "h"),
    ...(dir ? { ledgerDir: dir } : {}),
  });
  return { ...made, session };
}

/** Send one message, compact by hand, send again; returns the last request before the pass and the first after. */
async function turnThenCompact(session: Awaited<ReturnType<typeof open>["session"]>, text: string) {
  await session.send(text);
  const sentBefore = agentRequests().at(-1)!.body.messages as Message[];
  const answered = session.messages.slice();
  const result = await session.compress();
  expect(result.status).toBe("committed");
  await session.send(`after ${text}`);
  const bodyAfter = agentRequests().at(-1)!.body as Record<string, unknown>;
  const sentAfter = bodyAfter.messages as Message[];
  return { sentBefore, answered, sentAfter, bodyAfter };
}

describe("the compaction ledger (compressor, lossy)", () => {
  it("records every compaction so that it matches what was sent before and after, and undo gives back exactly what left", async () => {
    server.script(() => ({ content: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "ce-ledger-"));
    dirs.push(dir);
    const { session: opening, ofType } = open(dir);
    const session = await opening;
    const passes: Array<Awaited<ReturnType<typeof turnThenCompact>>> = [];
    for (const word of ["one", "two", "three"]) passes.push(await turnThenCompact(session, word));
    const entries = session.compactions();
    expect(entries).toHaveLength(3);
    entries.forEach((e: LedgerCompaction, i) => {
      const { sentBefore, answered, sentAfter } = passes[i]!;
      // The list before the pass is the request sent before it plus its answer.
      expect(strip(answered.slice(0, sentBefore.length))).toEqual(strip(sentBefore));
      expect(e.before).toEqual(answered.map(messageDigest));
      // The first request after the pass carries the ledger's "after" list, then the new user message.
      expect(e.after).toEqual(sentAfter.slice(0, -1).map(messageDigest));
      expect(e.messagesBefore).toBe(answered.length);
      expect(e.removed.length).toBeGreaterThan(0);
      expect(e.inserted.length).toBeGreaterThan(0);
      for (const r of e.removed) expect(strip([answered[r.index]!])).toEqual(strip([r.message]));
      for (const p of e.inserted) expect(strip([sentAfter[p.index]!])).toEqual(strip([p.message]));
      expect(e.engine).toBe("compressor");
      expect(e.trigger).toBe("manual");
      expect(e.cache.identicalPrefixBytes).toBeGreaterThan(0);
      expect(e.cache.identicalPrefixBytes).toBeLessThan(e.cache.bytesBefore);
      // The cache figure is measured on the request body as the host sends it (model, tools, then messages): the body
      // of the first request after the pass, without its new user message, is exactly the "after" the ledger measured.
      const { bodyAfter } = passes[i]!;
      expect(Object.keys(bodyAfter).slice(0, 3)).toEqual(["model", "tools", "messages"]);
      const wire = JSON.stringify({ model: bodyAfter.model, tools: bodyAfter.tools, messages: sentAfter.slice(0, -1) });
      expect(e.cache.bytesAfter).toBe(Buffer.byteLength(wire, "utf8"));
      // Model, tools and the system prompt are unchanged, so the identical prefix covers at least them.
      const head = JSON.stringify({ model: bodyAfter.model, tools: bodyAfter.tools, messages: [sentAfter[0]] }).slice(0, -2);
      expect(e.cache.identicalPrefixBytes).toBeGreaterThanOrEqual(Buffer.byteLength(head, "utf8"));
    });
    expect(ofType("compaction.committed").map((c) => c.ledgerId)).toEqual(["c1", "c2", "c3"]);

    // Undo the last pass: exactly the messages it removed come back, and what it inserted leaves.
    const beforeUndo = session.messages.slice();
    const undone = await session.undo();
    expect(undone.status).toBe("restored");
    const last = entries[2]!;
    expect(sorted(multisetMinus(session.messages, beforeUndo))).toEqual(sorted(last.removed.map((r) => r.message)));
    expect(sorted(multisetMinus(beforeUndo, session.messages))).toEqual(sorted(last.inserted.map((p) => p.message)));
    // The list after the undo is the list before that pass, plus the turn said after it.
    expect(session.messages.slice(0, last.before.length).map(messageDigest)).toEqual(last.before);
    const reply = await session.send("continue");
    expect(reply.status).toBe("completed");
    expect(session.ledger().filter((e) => e.kind === "restore")).toHaveLength(1);
  });

  it("a restore stays: the threshold does not compact it away again until the next compaction commits", async () => {
    server.script(() => ({ content: "ok" }));
    // A 1,000-token threshold the 10-turn history is far over, in a window it fits easily.
    const engine = new ContextCompressor({ contextLength: 200_000, model: "test-model", config: { protect_last_n: 4, threshold_tokens: 1_000 } });
    const made = makeHost(server, { engine, tools: [{ name: "read_file", parameters: { type: "object" } }], executeTool: () => "ok" });
    const session = await made.host.openSession({ sessionId: "hold", model: "test-model", contextLength: 200_000, systemPrompt: "You are a coding agent.", history: chat(10, "k") });
    await session.send("one");
    expect(session.compactions().map((c) => c.trigger)).toContain("preflight");
    const passes = session.compactions().length;
    expect((await session.undo()).status).toBe("restored");
    const removed = session.compactions().at(-1)!.removed.map((r) => canonicalLedgerMessage(r.message));
    await session.send("two");
    // No threshold pass: the next request carries every message the undo put back.
    expect(session.compactions()).toHaveLength(passes);
    const sent = (agentRequests().at(-1)!.body.messages as Message[]).map(canonicalLedgerMessage);
    for (const m of removed) expect(sent).toContain(m);
    // A compaction the user asks for ends the hold; the threshold applies again from then on.
    expect((await session.compress()).status).toBe("committed");
    expect((await session.undo()).status).toBe("restored");
    expect((await session.compress()).status).toBe("committed");
    // A request that by itself puts the list over the 1,000-token threshold: with the hold ended, a pass runs.
    await session.send(`three ${"filler ".repeat(1_200)}`);
    expect(session.compactions().length).toBeGreaterThan(passes + 2);
  });

  it("restore of an earlier compaction also unfolds a later one that covered its summary, and keeps tool pairs whole", async () => {
    server.script(() => ({ content: "ok" }));
    const session = await open().session;
    for (const word of ["a", "b"]) await turnThenCompact(session, word);
    const [first, second] = session.compactions();
    const result = await session.restore(first!.id);
    expect(result.status).toBe("restored");
    if (result.status !== "restored") return;
    const covered = second!.removed.some((r) => first!.inserted.some((p) => messageDigest(p.message) === messageDigest(r.message)));
    expect(result.entry.compactions).toEqual(covered ? ["c2", "c1"] : ["c1"]);
    // Every original of the first pass is back.
    const live = new Set(session.messages.map(messageDigest));
    for (const r of first!.removed) expect(live.has(messageDigest(r.message))).toBe(true);
    const reply = await session.send("go on");
    expect(reply.status).toBe("completed");
    const again = await session.restore(first!.id);
    expect(again).toMatchObject({ status: "already_restored", by: "r1" });
  });

  it("refuses a restore that does not fit the window, with the figure", async () => {
    server.script(() => ({ content: "ok" }));
    const session = await open().session;
    await session.send("first");
    expect((await session.compress()).status).toBe("committed");
    const [entry] = session.compactions();
    // A smaller window now (a model switch): the compacted list fits, the list with the originals back does not.
    const now = session.status().estimatedTokens;
    await session.switchModel("test-model", Math.floor(now + (entry!.tokensBefore - now) / 2));
    const before = session.messages.slice();
    const refused = await session.undo();
    expect(refused.status).toBe("does_not_fit");
    if (refused.status !== "does_not_fit") return;
    expect(refused.overBy).toBe(refused.tokensNeeded - refused.budget);
    expect(refused.overBy).toBeGreaterThan(0);
    expect(session.messages).toEqual(before);
  });
});

describe("pins", () => {
  it("are in every request verbatim after pinning, over three compactions, and across a resume", async () => {
    server.script(() => ({ content: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "ce-pins-"));
    dirs.push(dir);
    const { session: opening } = open(dir);
    const session = await opening;
    await session.send("before pinning");
    const pinned = await session.pin("Always answer in French. The deploy window is Tuesday 14:00 UTC.");
    expect(pinned.status).toBe("pinned");
    const byRef = await session.pin({ index: 2 });
    expect(byRef.status).toBe("pinned");
    const firstPinned = server.requests.length;
    for (const word of ["x", "y", "z"]) await turnThenCompact(session, word);
    expect(session.compactions()).toHaveLength(3);
    const sent = server.requests.slice(firstPinned).filter((r) => r.body.model === "test-model");
    expect(sent.length).toBeGreaterThanOrEqual(6);
    for (const r of sent) {
      const messages = r.body.messages as Message[];
      expect(messages[0]).toEqual({ role: "system", content: "You are a coding agent." });
      expect(isPinsBlock(messages[1]!)).toBe(true);
      expect(messages[1]!.content).toContain("Always answer in French. The deploy window is Tuesday 14:00 UTC.");
      expect(messages.filter(isPinsBlock)).toHaveLength(1);
    }
    // Cache-stable: the block is byte-identical in every request while the pins do not change.
    expect(new Set(sent.map((r) => JSON.stringify((r.body.messages as Message[])[1])))).toHaveProperty("size", 1);
    expect(session.pins().map((p) => p.id)).toEqual(["p1", "p2"]);
    expect(session.pins()[0]!.tokens).toBeGreaterThan(0);
    expect(session.ledger().filter((e) => e.kind === "pin").map((e) => (e as { pinId: string }).pinId)).toEqual(["p1", "p2"]);

    // Resume: a new host, the same ledger directory; the history as saved (with the old block in it).
    const saved = session.messages.slice(1);
    const engine = new ContextCompressor({ contextLength: 200_000, model: "test-model" });
    const { host } = makeHost(server, { engine });
    const resumed = await host.openSession({ sessionId: "ledger-chat", model: "test-model", contextLength: 200_000, systemPrompt: "You are a coding agent.", history: saved, ledgerDir: dir });
    expect(resumed.pins().map((p) => p.text)).toEqual(session.pins().map((p) => p.text));
    expect(resumed.compactions()).toHaveLength(3);
    await resumed.send("after resume");
    const last = agentRequests().at(-1)!.body.messages as Message[];
    expect(last.filter(isPinsBlock)).toHaveLength(1);
    expect(last[1]!.content).toContain("Always answer in French.");
    // Undo works after the resume: the ledger file has the originals.
    expect((await resumed.undo()).status).toBe("restored");
    expect((await resumed.unpin("p1")).status).toBe("unpinned");
    await resumed.send("unpinned");
    expect(JSON.stringify(agentRequests().at(-1)!.body.messages)).not.toContain("Always answer in French.");
  });

  it("refuses a pin past the cap with the figure, and survives an engine that drops the block", async () => {
    server.script(() => ({ content: "ok" }));
    const { host } = makeHost(server, { engine: new ContextCompressor({ contextLength: 4_000, model: "test-model" }), config: { pins: { maxShare: 0.1 } } });
    const session = await host.openSession({ model: "test-model", contextLength: 4_000, systemPrompt: "sys" });
    const refused = await session.pin("long ".repeat(500));
    expect(refused.status).toBe("refused");
    if (refused.status === "refused") {
      expect(refused.cap).toBe(400);
      expect(refused.overBy).toBe(refused.blockTokens - 400);
      expect(refused.reason).toContain("host.pins.max_share");
    }
    expect(session.pins()).toEqual([]);
    expect(session.messages.some(isPinsBlock)).toBe(false);
  });
});

describe("a damaged ledger file", () => {
  it("does not stop the session: it is left untouched, named with its line and field, and the session keeps its ledger in memory", async () => {
    server.script(() => ({ content: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "ce-ledger-bad-"));
    dirs.push(dir);
    const file = join(dir, "bad-chat.ledger.jsonl");
    const damaged = `{"kind":"pin","id":"e1","sessionId":"bad-chat","at":"2026-01-01T00:00:00Z","pinId":"p1","text":"x","blockTokens":5}\n{"kind":"compaction","id":"c1"}\n`;
    writeFileSync(file, damaged);
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    const { host } = makeHost(server, { engine: new ContextCompressor({ contextLength: 200_000, model: "test-model" }), logger });
    const session = await host.openSession({ sessionId: "bad-chat", model: "test-model", contextLength: 200_000, history: chat(10, "d"), ledgerDir: dir });
    expect(warnings.join("\n")).toMatch(/bad-chat\.ledger\.jsonl: line 2: not a ledger entry \(\w+: /);
    expect((await session.compress()).status).toBe("committed");
    expect(session.compactions()).toHaveLength(1);
    expect(readFileSync(file, "utf8")).toBe(damaged);
  });
});
