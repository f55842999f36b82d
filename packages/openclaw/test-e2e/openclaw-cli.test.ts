// The real OpenClaw (from npm, Node 24) as its users run it, short enough for CI: the LCM plugin installed
// from the packed tarballs with OpenClaw's own CLI exactly as the README says, a loopback OpenAI-compatible
// model (24k window), two OpenClaw homes on one PostgreSQL schema, four turns through `openclaw agent
// --local` (each in a fresh process, so each is also a restart): A, then B continuing A's session, A, B;
// then two turns through a gateway on home A (OpenClaw disposes the engine after each), the first a tool
// turn (the model calls `read`) right after home B's turn, which the gateway's own transcript lacks.
// The long scenario (a gateway killed and restarted, `openclaw sessions compact`, many turns) is
// e2e/long-scenario.mjs, its last run reported in the README.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM harness without declarations
import { dropSchema, makeHome, pgFrom, prepareInstall, startGateway, startModel, storedRows, storedSessions } from "../e2e/harness.mjs";

const enabled = process.env.CONTEXT_ENGINE_OPENCLAW_E2E === "1" && Number(process.versions.node.split(".")[0]) >= 24;
const url = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const WINDOW = 24_000;
const log = (...a: unknown[]) => console.log(`[openclaw-e2e ${new Date().toISOString().slice(11, 19)}]`, ...a);

/* eslint-disable @typescript-eslint/no-explicit-any */
type Request = { body: { messages: Array<{ role: string; content: unknown }> } };
const textOf = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p: any) => p?.text ?? "").join(" ") : "");
const notesOf = (r: Request) => r.body.messages.filter((m) => m.role === "user" && textOf(m.content).includes("<lcm_context>")).map((m) => textOf(m.content));
const sizeOf = (r: Request) => Math.ceil(JSON.stringify(r.body.messages).length / 4);
// OpenClaw's memory flush is its own run (never handed to the engine, README "Last run"): not the user's turn.
const userTurn = (r: Request, marker: string) => JSON.stringify(r.body.messages ?? []).includes(marker) && !JSON.stringify(r.body.messages).includes("Pre-compaction memory flush");

describe.skipIf(!enabled)("the real OpenClaw, installed as the README says", () => {
  const work = mkdtempSync(join(tmpdir(), "oc-e2e-"));
  const schema = `oc_e2e_${randomBytes(5).toString("hex")}`;
  const session = `e2e-${randomBytes(4).toString("hex")}`;
  const tag = randomBytes(3).toString("hex");
  // About 4.8k tokens each: three turns overflow the ~8.8k tokens OpenClaw leaves for history on a 24k window.
  const toolFile = join(work, "harbour-notes.txt");
  // The gateway's first turn is a tool turn: the loopback model calls `read` on a user message asking `[[read:<path>]]`.
  const toolAsk = (i: number) => (i === 4 ? ` Read [[read:${toolFile}]] first.` : "");
  const said = [0, 1, 2, 3, 4, 5].map((i) => `Please remember fact-${i}-${tag}.${toolAsk(i)} ${`Log ${i}: the harbour master noted the tides, the ferries and the weather of the day. `.repeat(230)}`);
  const turns: any[] = [];
  const perTurn: Request[][] = [];
  let model: any;
  let homeA: any;
  let homeB: any;
  let pg: any;
  let gateway: any;
  let gatewayReady = false;

  beforeAll(async () => {
    const started = Date.now();
    const install = await prepareInstall(work, { cache: true });
    log(`packed and installed in ${Math.round((Date.now() - started) / 1000)} s`);
    model = await startModel(work);
    // A fresh tail that holds the last turn whole (the default keeps up to 40 % of the compaction target).
    const pluginConfig = { store: url, schema, fresh_tail_max_tokens: 6_000 };
    [homeA, homeB] = await Promise.all([
      makeHome(install, join(work, "home-a"), { port: model.port, window: WINDOW, pluginConfig }),
      makeHome(install, join(work, "home-b"), { port: model.port, window: WINDOW, pluginConfig }),
    ]);
    log(`plugin installed in two homes at ${Math.round((Date.now() - started) / 1000)} s`);
    pg = pgFrom(homeA);
    writeFileSync(toolFile, `Harbour notes for ${tag}.\n`);
    for (const [i, home] of [homeA, homeB, homeA, homeB].entries()) {
      const before = model.requests().length;
      turns.push(await home.turn(session, said[i]));
      perTurn.push(model.requests().slice(before).filter((r: Request) => userTurn(r, `fact-${i}-${tag}`)));
      const shapes = perTurn[i]!.map((r) => r.body.messages.map((m) => `${m.role}:${textOf(m.content).replace(/\s+/g, " ").slice(0, 40)}`).join(" | "));
      log(`turn ${i}: exit ${turns[i].code} in ${Math.round(turns[i].ms / 1000)} s; request sizes ${perTurn[i].map(sizeOf).join(", ")}\n  ${shapes.join("\n  ")}`);
    }
    // Then a gateway on home A (OpenClaw disposes the engine after every turn there): two more turns.
    gateway = startGateway(install, homeA, { port: 20_000 + Math.floor(Math.random() * 20_000), token: randomBytes(12).toString("hex") });
    gatewayReady = await gateway.ready;
    if (!gatewayReady) {
      // Under heavy load OpenClaw's gateway can miss its own start deadline ("state lease heartbeat did not become ready"): once more.
      log(`gateway did not start, retrying:\n${gateway.output().slice(-600)}`);
      gateway.stop("SIGKILL");
      gateway = startGateway(install, homeA, { port: 20_000 + Math.floor(Math.random() * 20_000), token: randomBytes(12).toString("hex") });
      gatewayReady = await gateway.ready;
    }
    log(`gateway ready: ${gatewayReady} at ${Math.round((Date.now() - started) / 1000)} s`);
    for (const i of gatewayReady ? [4, 5] : []) {
      const before = model.requests().length;
      turns.push(await gateway.turn(session, said[i]));
      perTurn.push(model.requests().slice(before).filter((r: Request) => userTurn(r, `fact-${i}-${tag}`)));
      log(`turn ${i} (gateway): exit ${turns[i].code} in ${Math.round(turns[i].ms / 1000)} s; request sizes ${perTurn[i]!.map(sizeOf).join(", ")}`);
    }
    gateway.stop();
  });

  afterAll(async () => {
    gateway?.stop("SIGKILL");
    model?.stop();
    if (pg) await dropSchema(pg, url, schema).catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it("installs with the README's command: dependencies resolved, pg beside the plugin", () => {
    expect(readme).toMatch(/openclaw plugins install \.\/context-engine-openclaw-lcm-<version>\.tgz --force --accept-capabilities/);
    // OpenClaw ran npm install for the plugin's dependencies (it does so for an archive, not for a directory).
    for (const dep of ["better-sqlite3", "re2js", "pg"]) expect(existsSync(join(homeA.pluginDir, "node_modules", dep, "package.json")), dep).toBe(true);
    expect(existsSync(join(homeA.pluginDir, "node_modules", "@context-engine"))).toBe(false);
    expect(homeA.config.plugins.slots.contextEngine).toBe("context-engine-lcm");
    expect(typeof pg.Client).toBe("function");
  });

  it("every turn runs in a fresh process without a wedge, and every request fits the model's window", () => {
    for (const [i, t] of turns.slice(0, 4).entries()) {
      expect(t.code, `turn ${i}: ${(t.stderr + t.stdout).slice(-2000)}`).toBe(0);
      expect(t.stdout + t.stderr).not.toMatch(/Preflight compaction required but failed|nothing assembled/);
      expect(perTurn[i]!.length, `turn ${i} reached the model`).toBeGreaterThan(0);
    }
    for (const r of perTurn.slice(0, 4).flat()) expect(sizeOf(r)).toBeLessThan(WINDOW);
  });

  it("a second home continuing the session assembles the stored history: the first turn verbatim, no compaction yet", () => {
    const fromB = perTurn[1]!;
    for (const r of fromB) {
      expect(JSON.stringify(r.body.messages)).toContain(`fact-0-${tag}`);
      // Below what the window requires: the history goes to the model as it is, without LCM's notes.
      expect(notesOf(r)).toEqual([]);
    }
    expect(turns[1].stdout).toContain(`fact-0-${tag}`);
  });

  it("compaction when the window requires it: the last turn verbatim, and every note true", () => {
    const third = perTurn[2]!;
    const notes = third.flatMap(notesOf);
    // Home A's own transcript has turn 0 only; the store has turn 1 from home B, which reaches the model whole.
    for (const r of third) expect(r.body.messages.some((m) => m.role === "user" && textOf(m.content).includes(said[1]!))).toBe(true);
    expect(notes.length, "the history over the room OpenClaw leaves was compacted").toBeGreaterThan(0);
    for (const note of notes) {
      expect(note).not.toContain("latest request");
      if (note.includes("summaries below")) expect(note).toContain("<summary ");
      else expect(note).toContain("not shown here");
      // OpenClaw sends the turn's own message after the history: no earlier message is quoted as the request.
      expect(note).not.toMatch(/quoted verbatim[\s\S]*fact-[01]-/);
    }
  });

  it("a gateway session (disposed after every turn) on the compacted history: each turn reaches the model once", () => {
    expect(gatewayReady, gateway?.output().slice(-2000)).toBe(true);
    for (const i of [4, 5]) {
      expect(turns[i].code, `turn ${i}: ${(turns[i].stderr + turns[i].stdout).slice(-2000)}`).toBe(0);
      expect(turns[i].stdout + turns[i].stderr).not.toMatch(/Preflight compaction required but failed|nothing assembled/);
    }
    for (const r of perTurn[5]!) {
      const users = r.body.messages.filter((m) => m.role === "user").map((m) => textOf(m.content));
      expect(users.filter((t) => t.includes(`fact-4-${tag}`)), "the previous turn once").toHaveLength(1);
      expect(users.filter((t) => t.includes(`fact-3-${tag}`)), "home B's turn once").toHaveLength(1);
      for (const note of notesOf(r)) if (note.includes("summaries below")) expect(note).toContain("<summary ");
      expect(sizeOf(r)).toBeLessThan(WINDOW);
    }
  });

  it("the gateway's tool turn after home B's turn: every message of it stored once, the tool round whole", async () => {
    const reached = perTurn[4]!.map((r) => r.body.messages.map((m) => m.role));
    expect(reached.some((roles) => roles.includes("tool")), "the model got the tool's result").toBe(true);
    const rows = await storedRows(pg, url, schema, session);
    const at = rows.findIndex((r: any) => r.role === "user" && JSON.stringify(r.message.content).includes(`fact-4-${tag}`));
    expect(at, "the tool turn's user message is stored").toBeGreaterThanOrEqual(0);
    const turn = rows.slice(at, rows.findIndex((r: any, i: number) => i > at && r.role === "user" && JSON.stringify(r.message.content).includes(`fact-5-${tag}`)));
    const calls = turn.flatMap((r: any) => (r.role === "assistant" ? (r.message.tool_calls ?? []).map((c: any) => c.id) : []));
    const results = turn.filter((r: any) => r.role === "tool").map((r: any) => r.message.tool_call_id);
    log(`stored tool turn: ${turn.map((r: any) => r.role).join(", ")}`);
    expect(calls.length, "the assistant's tool call is stored").toBe(1);
    expect(results, "its result once, after it").toEqual(calls);
    expect(turn.at(-1)!.role).toBe("assistant");
    // Over the whole session: no result without its call, no call without its result, nothing twice.
    const allCalls = rows.flatMap((r: any) => (r.role === "assistant" ? (r.message.tool_calls ?? []).map((c: any) => c.id) : []));
    const allResults = rows.filter((r: any) => r.role === "tool").map((r: any) => r.message.tool_call_id);
    expect([...allResults].sort()).toEqual([...allCalls].sort());
    expect(new Set(allCalls).size).toBe(allCalls.length);
  });

  it("every message is stored once, and OpenClaw's own runs are not stored as conversations", async () => {
    const rows = await storedRows(pg, url, schema, session);
    const users = rows.filter((r: any) => r.role === "user").map((r: any) => JSON.stringify(r.message.content));
    for (const i of [0, 1, 2, 3, 4, 5]) expect(users.filter((u: string) => u.includes(`fact-${i}-${tag}`)), `turn ${i}'s message stored once`).toHaveLength(1);
    expect(rows.filter((r: any) => r.role === "assistant").length).toBeGreaterThanOrEqual(6);
    expect((await storedSessions(pg, url, schema)).filter((s: string) => s.startsWith("internal-session-effects"))).toEqual([]);
  });
});
