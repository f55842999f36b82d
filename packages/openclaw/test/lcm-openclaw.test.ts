// LCM through the adapter, under OpenClaw's call sequence, on a real SQLite file and a real
// PostgreSQL schema: a restart never wedges a session, a session continued from another OpenClaw
// home assembles the stored history, and what OpenClaw commits is stored once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toOpenAiMessages } from "../src/index.js";
import type { OcAgentMessage } from "../src/index.js";
import { assistant, toolResult, user } from "./fixtures.js";
import { dropSchema, loadLcmPlugin, postgresReachable, POSTGRES_URL, storedRows, storedSessions, uniqueSchema } from "./lcm-store.js";
import { openclawTurn } from "./openclaw-protocol.js";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "oc-lcm35-"));
  dirs.push(d);
  return d;
};
const schemas: string[] = [];
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const s of schemas) await dropSchema(s);
});

const filler = (i: number) => `${"we talked about the weather and the harbour at length ".repeat(30)} (turn ${i})`;
const factTurn = (i: number, fact = `fact-${i}`): OcAgentMessage[] => [
  user(`remember ${fact}. ${filler(i)}`, i * 10),
  assistant("", [{ id: `call_${i}`, name: "note", args: { fact } }], i * 10 + 1),
  toolResult(`call_${i}`, "note", `noted ${fact}`, i * 10 + 2),
  assistant(`I will remember ${fact}.`, [], i * 10 + 3),
];
const text = (messages: readonly unknown[]) => JSON.stringify(messages);

describe("a restart never wedges a session (SQLite)", () => {
  it("OpenClaw's preflight compact(force) before any assemble compacts the stored history; the next assemble fits its budget", async () => {
    const agentDir = tempDir();
    const config = { fresh_tail_count: 8, leaf_min_messages: 2, leaf_chunk_tokens: 2_000 };
    const shape = { sessionId: "restart-1", window: 24_000, firstBudget: 8_800 };
    const before = await loadLcmPlugin(config, agentDir);
    let history: OcAgentMessage[] = [];
    for (let i = 0; i < 10; i++) {
      const turn = factTurn(i);
      await openclawTurn(before, shape, history, `remember fact-${i}`, turn, `k${i}`);
      history = [...history, ...turn];
    }
    // A new process (gateway restart): preflight compaction comes first.
    const after = await loadLcmPlugin(config, agentDir);
    const compacted = await after.compact({ sessionId: shape.sessionId, sessionKey: "agent:main:restart-1", force: true, tokenBudget: 24_000, currentTokenCount: 22_000 });
    expect(compacted.reason ?? "").not.toMatch(/nothing assembled/);
    expect(compacted).toMatchObject({ ok: true, compacted: true });
    const { first } = await openclawTurn(after, shape, history, "what was fact-0?", factTurn(10), "k10");
    expect(first.estimatedTokens).toBeLessThanOrEqual(8_800);
    // Recent turns verbatim: the last committed turn is there as OpenClaw's own objects.
    expect(first.messages.slice(-4)).toEqual(history.slice(-4));
    // The first turn's fact is still reachable from the context (a summary or the message itself).
    expect(text(first.messages)).toContain("fact-0");
  });
});

const reachable = await postgresReachable();

describe.skipIf(!reachable)("two OpenClaw homes on one PostgreSQL schema", () => {
  const pgConfig = () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    return { store: POSTGRES_URL, schema, fresh_tail_count: 16 };
  };

  it("a session continued from a second home assembles the stored history, not only the new message", async () => {
    const config = pgConfig();
    const homeA = await loadLcmPlugin(config, tempDir());
    const shape = { sessionId: "shared-1", window: 24_000, firstBudget: 8_800 };
    let history: OcAgentMessage[] = [];
    for (let i = 0; i < 2; i++) {
      const turn = factTurn(i, `harbour-code-${i}`);
      await openclawTurn(homeA, shape, history, `remember harbour-code-${i}`, turn, `a${i}`);
      history = [...history, ...turn];
    }
    // Home B has never seen the session: its own transcript is empty.
    const homeB = await loadLcmPlugin(config, tempDir());
    const { first } = await openclawTurn(homeB, shape, [], "what were the harbour codes?", factTurn(2, "harbour-code-2"), "b0");
    expect(text(first.messages)).toContain("harbour-code-0");
    expect(text(first.messages)).toContain("harbour-code-1");
    // Its second turn (same process) keeps the stored history and adds its own turn after it.
    const second = await homeB.assemble({ sessionId: shape.sessionId, messages: factTurn(2, "harbour-code-2"), tokenBudget: 8_800, prompt: "and now?" });
    expect(text(second.messages)).toContain("harbour-code-0");
    expect(second.messages.slice(-4)).toEqual(factTurn(2, "harbour-code-2"));
  });

  // The next three need LCM to store `turnMessages` by turn key (issue 33, the lead's LCM change).
  it("[needs LCM keyed ingest] a cross-process tool turn user, assistant(tool_calls), custom, toolResult, assistant is stored whole", async () => {
    const config = pgConfig();
    const dataDir = tempDir();
    const homeA = await loadLcmPlugin(config, dataDir);
    const homeB = await loadLcmPlugin(config, tempDir());
    const shape = { sessionId: "shared-2", window: 24_000, firstBudget: 100_000 };
    const turnA = factTurn(0, "from-the-cli");
    await openclawTurn(homeA, shape, [], "remember from-the-cli", turnA, "cli-0");
    // The gateway's transcript lacks the CLI's turn; its tool turn carries an empty custom message.
    const custom: OcAgentMessage = { role: "custom", customType: "openclaw.tool-search", content: "", display: false, timestamp: 101 };
    const turnB: OcAgentMessage[] = [user("look it up", 100), assistant("", [{ id: "call_9", name: "tool_search" }], 101), custom, toolResult("call_9", "tool_search", "found", 102), assistant("found it", [], 103)];
    await openclawTurn(homeB, shape, [], "look it up", turnB, "gw-0");
    const rows = await storedRows(config, dataDir, shape.sessionId);
    expect(rows).toHaveLength(turnA.length + turnB.length);
    expect(rows.slice(turnA.length)).toEqual(toOpenAiMessages(turnB).messages.map((m) => expect.objectContaining({ role: m.role })));
  });

  it("[needs LCM keyed ingest] interleaved homes with tool turns and empty custom messages at the same index: every message once", async () => {
    const config = pgConfig();
    const dataDir = tempDir();
    const gateway = await loadLcmPlugin(config, dataDir);
    const cli = await loadLcmPlugin(config, tempDir());
    const shape = { sessionId: "shared-5", window: 24_000, firstBudget: 100_000 };
    const custom = (t: number): OcAgentMessage => ({ role: "custom", customType: "openclaw.tool-search", content: "", display: false, timestamp: t });
    const toolTurn = (who: string, t: number): OcAgentMessage[] => [
      user(`${who}: look it up`, t),
      assistant("", [{ id: `call_${who}`, name: "tool_search" }], t + 1),
      custom(t + 2),
      toolResult(`call_${who}`, "tool_search", `${who} found it`, t + 3),
      assistant(`${who}: found it`, [], t + 4),
    ];
    const g0: OcAgentMessage[] = [user("gateway: hello", 1), assistant("hello", [], 2)];
    await openclawTurn(gateway, shape, [], "gateway: hello", g0, "g0");
    const c1 = toolTurn("cli", 10);
    await openclawTurn(cli, shape, [], "cli: look it up", c1, "c1");
    // The gateway's transcript lacks the CLI's turn; its tool turn has the same shape at the same index.
    const g2 = toolTurn("gateway", 20);
    await openclawTurn(gateway, shape, g0, "gateway: look it up", g2, "g2");
    const rows = await storedRows(config, dataDir, shape.sessionId);
    expect(rows).toHaveLength(g0.length + c1.length + g2.length);
    const texts = JSON.stringify(rows);
    for (const said of ["gateway: hello", "cli: look it up", "gateway: look it up", "gateway found it", "cli found it"]) expect(texts).toContain(said);
  });

  it("[needs LCM keyed ingest] no turn is stored twice after OpenClaw's compaction rewrites tool-call ids", async () => {
    const config = pgConfig();
    const dataDir = tempDir();
    const oc = await loadLcmPlugin(config, dataDir);
    const shape = { sessionId: "shared-3", window: 24_000, firstBudget: 100_000 };
    const t0 = factTurn(10);
    await openclawTurn(oc, shape, [], "remember fact-10", t0, "k0");
    // OpenClaw's own compaction rewrote call_10 to call10 in the transcript it passes afterwards.
    // It also put its own summary in front of what it kept.
    const summary: OcAgentMessage = { role: "compactionSummary", summary: "The user asked to remember fact-10.", tokensBefore: 900, timestamp: 40 };
    const rewritten = [summary, ...(JSON.parse(JSON.stringify(t0).replaceAll("call_10", "call10")) as OcAgentMessage[]).slice(1)];
    const t1 = factTurn(11);
    await openclawTurn(oc, shape, rewritten, "remember fact-11", t1, "k1");
    const restarted = await loadLcmPlugin(config, tempDir());
    // A re-delivered key after a restart is recognised by the store, not only by the process's memory.
    await restarted.commitTurn({ sessionId: shape.sessionId, advancementKey: "k1", messages: t1 });
    const rows = await storedRows(config, dataDir, shape.sessionId);
    expect(rows).toHaveLength(t0.length + t1.length);
  });

  it("a crash-recovered turn's user text is stored once, also when OpenClaw's transcript later shows it merged with the recovery prompt", async () => {
    // As in a real gateway run: three turns, the gateway killed while the model held the fourth, OpenClaw's
    // recovery re-running it in a new process (the user's text only in the prompt), then more turns whose
    // transcript shows the user's message and the recovery prompt as one merged user message.
    const config = pgConfig();
    const shape = { sessionId: "shared-5", window: 24_000, firstBudget: 5_800 };
    const before = await loadLcmPlugin(config, tempDir());
    let history: OcAgentMessage[] = [];
    for (let i = 0; i < 3; i++) {
      const turn = [user(`Remember fact-${i}. ${filler(i)}`, i * 10), assistant(`Noted fact-${i}.`, [], i * 10 + 1)];
      await openclawTurn(before, shape, history, `Remember fact-${i}.`, turn, `k${i}`);
      history = [...history, ...turn];
    }
    const crashed = `Remember fact-3. [[hold]] ${filler(3)}`;
    const recovery = "[System] Your previous turn was interrupted by a gateway restart. Continue where you left off.";
    const queuedPrompt = `[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]\n${crashed}\n\n${recovery}`;
    const after = await loadLcmPlugin(config, tempDir());
    const recoveredTurn = [user(recovery, 35), assistant("Noted fact-3.", [], 36)];
    await openclawTurn(after, shape, history, queuedPrompt, recoveredTurn, "k3");
    // OpenClaw's transcript afterwards: the user's message kept before the recovery prompt, merged with it.
    const merged: OcAgentMessage = { role: "user", content: [{ type: "text", text: crashed }, { type: "text", text: recovery }], timestamp: 35 };
    history = [...history, merged, recoveredTurn[1]!];
    for (let i = 4; i < 7; i++) {
      const turn = [user(`Remember fact-${i}. ${filler(i)}`, i * 10), assistant(`Noted fact-${i}.`, [], i * 10 + 1)];
      await openclawTurn(after, shape, history, `Remember fact-${i}.`, turn, `k${i}`);
      history = [...history, ...turn];
    }
    const rows = await storedRows(config, tempDir(), shape.sessionId);
    const userTexts = rows.filter((r) => r.role === "user").map((r) => JSON.stringify(r.content));
    for (let i = 0; i < 7; i++) expect(userTexts.filter((t) => t.includes(`Remember fact-${i}.`)), `fact-${i}`).toHaveLength(1);
    expect(rows).toHaveLength(14);
  });

  it("[needs LCM keyed ingest] a crash-recovered turn stores the user's own text; memory-flush runs are not stored", async () => {
    const config = pgConfig();
    const dataDir = tempDir();
    const oc = await loadLcmPlugin(config, dataDir);
    const recovery = "[System] Your previous turn was interrupted by a gateway restart. Continue where you left off.";
    const prompt = `[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]\nthe locker code is 7-4-1-9\n\n${recovery}`;
    await oc.assemble({ sessionId: "shared-4", messages: [], tokenBudget: 8_800, prompt });
    await oc.commitTurn({ sessionId: "shared-4", advancementKey: "rec", messages: [user(recovery, 5), assistant("Noted: 7-4-1-9.", [], 6)] });
    const flush = "internal-session-effects-memory_flush-0123456789abcdef";
    await openclawTurn(oc, { sessionId: flush, window: 24_000, firstBudget: 8_800 }, [], "flush memory", factTurn(0, "flush"), "f0");
    const rows = await storedRows(config, dataDir, "shared-4");
    expect(text(rows)).toContain("the locker code is 7-4-1-9");
    expect(await storedSessions(config, dataDir)).not.toContain(flush);
  });
});
