import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkContext, CheckFailed, expectMessageHit, parseGrep } from "../src/checks.js";
import { completeRegex, runEngineSuite } from "../src/engine-suite.js";
import { ConversationGenerator, PLANTED } from "../src/generate.js";
import { resumeThroughHost, runHostSuite } from "../src/host-suite.js";
import type { HostResult } from "../src/host-suite.js";
import { LoopbackChatServer } from "../src/loopback-server.js";
import { finishMachineInfo, machineInfo } from "../src/machine.js";
import { chartSeries, chartSpec, formatTable, renderChartSvg } from "../src/report.js";
import type { BenchReport } from "../src/report.js";
import { benchSchema, DEFAULT_PG_URL, dropSchema } from "../src/round-trips.js";
import { readSettings } from "../src/settings.js";
import { judgeTargets } from "../src/targets.js";

const dir = mkdtempSync(join(tmpdir(), "bench-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("correctness checks", () => {
  it("rejects an assembled context that is invalid or over budget", () => {
    const ok = [
      { role: "system", content: "s" },
      { role: "user", content: "hello" },
    ];
    expect(checkContext("ok", ok, 1_000)).toHaveLength(2);
    expect(() => checkContext("orphan", [...ok, { role: "tool", tool_call_id: "x", content: "r" }], 1_000)).toThrow(CheckFailed);
    expect(() => checkContext("budget", [{ role: "user", content: "word ".repeat(2_000) }], 100)).toThrow(/over the budget/);
    expect(() => checkContext("not a list", null, 100)).toThrow(CheckFailed);
  });

  it("fails a grep that misses the planted message or errors", () => {
    const page = parseGrep("t", JSON.stringify({ hits: [{ ref: "msg_3", type: "message", seq: 3, snippet: "x" }], nextCursor: null, complete: true }));
    expect(expectMessageHit("t", page, 3).ref).toBe("msg_3");
    expect(() => expectMessageHit("t", page, 4)).toThrow(/not among the hits/);
    expect(() => parseGrep("t", JSON.stringify({ error: "boom" }))).toThrow(CheckFailed);
  });

  it("follows regex cursors to the last page", async () => {
    const pages = [
      { hits: [{ ref: "msg_9", type: "message", seq: 9, snippet: "" }], nextCursor: "c1", complete: false },
      { hits: [{ ref: "msg_1", type: "message", seq: 1, snippet: "" }], nextCursor: null, complete: true },
    ];
    const cursors: unknown[] = [];
    const found = await completeRegex(async (_name, args) => {
      cursors.push(args.cursor);
      return JSON.stringify(pages[cursors.length - 1]);
    }, "x");
    expect(found.pages).toBe(2);
    expect(cursors).toEqual([undefined, "c1"]);
    expect(found.hits.map((h) => h.seq)).toEqual([9, 1]);
  });

  it("plants every search target, with CJK in about a third of the messages", () => {
    const gen = new ConversationGenerator();
    const messages = gen.until(5_000);
    const text = messages.map((m) => (typeof m.content === "string" ? m.content : ""));
    for (const key of ["oldest", "words", "rare", "cjk"] as const) {
      const at = gen.plantedAt[key];
      expect(text[at]).toContain(PLANTED[key].text);
      expect(text.filter((t) => t.includes(PLANTED[key].query))).toHaveLength(1);
    }
    expect(gen.plantedAt.literal.length).toBe(3);
    const cjkShare = text.filter((t) => /[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]/.test(t)).length / text.length;
    expect(cjkShare).toBeGreaterThan(0.25);
    expect(cjkShare).toBeLessThan(0.45);
  });
});

describe("suite on a tiny conversation", () => {
  it("produces checked figures at every size, with compactions, a table, JSON-ready data and a chart", async () => {
    const machine = machineInfo();
    const server = await new LoopbackChatServer().start();
    const resumed: HostResult[] = [];
    const engine = await runEngineSuite({
      sizes: [300, 700],
      dir: join(dir, "engine"),
      contextLength: 8_000,
      iterations: { grep: 2, regexComplete: 2, noop: 3 },
      // The conversation continues through AgentHost after the first size, then per turn again.
      afterCheckpoint: async ({ engine: lcm, sessionId, live, messages }) => {
        if (resumed.length) return { live, addedMessages: [] };
        const r = await resumeThroughHost(lcm, sessionId, live, messages, server, 8_000, 3);
        resumed.push(r.result);
        return r;
      },
    });
    await server.stop();
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({ engine: "lcm", mode: "resumed", perTurn: { n: 3 } });
    expect(engine.map((p) => p.messages)).toEqual([expect.any(Number), expect.any(Number)]);
    const last = engine[1]!;
    expect(last.messages).toBeGreaterThanOrEqual(700);
    expect(last.compactions).toBeGreaterThan(0);
    expect(last.trigger.n).toBeGreaterThan(0);
    expect(last.ingest.n).toBeGreaterThan(10);
    expect(last.select.n).toBeGreaterThan(last.ingest.n);
    for (const kind of ["words", "rare", "cjk", "regex_page", "regex_oldest", "expand"] as const) {
      expect(last.grep[kind].n).toBe(2);
      expect(last.grep[kind].cpu.n).toBe(2);
    }
    // Every wall figure carries the CPU time of the same calls and the load it was taken at.
    expect(last.ingest.cpu.n).toBe(last.ingest.n);
    expect(last.select.cpu.n).toBe(last.select.n);
    expect(last.ingest.load).toBeGreaterThanOrEqual(0);
    expect(last.store).toBe("sqlite");
    expect(last.roundTrips).toBeNull();
    expect(last.regexComplete.copies).toBe(1);
    expect(last.dbBytes).toBeGreaterThan(last.rawBytes / 10);

    const host = await runHostSuite({ sizes: [300], dir: join(dir, "host"), contextLength: 8_000, turns: 3 });
    expect(host.map((h) => h.engine)).toEqual(["compressor", "lcm"]);
    for (const h of host) {
      expect(h.perTurn.n).toBe(3);
      expect(h.perTurn.cpu.n).toBe(3);
      expect(Number.isFinite(h.perTurn.p95)).toBe(true);
      expect(h.firstTurnCpuMs).toBeGreaterThan(0);
      // The engine's hooks are part of the host's first turn, never more than it.
      expect(h.firstTurnEngineMs).toBeGreaterThan(0);
      expect(h.firstTurnEngineMs).toBeLessThanOrEqual(h.firstTurnMs + 1);
    }

    const report: BenchReport = { machine: finishMachineInfo(machine), settings: {}, targets: judgeTargets(engine, [...resumed, ...host]), engine, host: [...resumed, ...host] };
    expect(report.targets.map((t) => t.name)).toEqual(["ingest", "ingest_cpu", "trigger", "noop_compress", "regex_complete", "regex_oldest", "db_size", "memory_flat", "imported_first_turn", "imported_first_turn_engine"]);
    for (const t of report.targets) expect(["PASS", "MISS"]).toContain(t.status);
    const table = formatTable(report);
    expect(table).toMatch(/PASS|MISS/);
    expect(table).toContain(machine.commit);
    expect(table).toContain("CPU");
    const roundTrip = JSON.parse(JSON.stringify(report)) as BenchReport;
    expect(roundTrip.engine[0]!.ingest).toMatchObject({ n: expect.any(Number), median: expect.any(Number), p95: expect.any(Number) });
    const spec = chartSpec(report) as { encoding: { x: { scale: { type: string } }; y: { scale: { type: string } } } };
    expect(spec.encoding.x.scale.type).toBe("log");
    expect(spec.encoding.y.scale.type).toBe("log");
    expect(chartSeries(report).some((p) => p.series.startsWith("host per turn, lcm"))).toBe(true);
    const svg = await renderChartSvg(report);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain(machine.commit);
  }, 120_000);
});

describe("suite on PostgreSQL", () => {
  it("publishes per-turn figures with the round trips of every hook, and drops its schema", async () => {
    const schema = benchSchema("test");
    const store = { kind: "postgres" as const, url: process.env.LCM_TEST_POSTGRES_URL ?? DEFAULT_PG_URL, schema };
    try {
      const [point] = await runEngineSuite({ sizes: [300], dir: join(dir, "pg"), store, contextLength: 8_000, iterations: { grep: 1, regexComplete: 1, noop: 2 } });
      expect(point!.store).toBe("postgres");
      expect(point!.roundTrips!.ingest.n).toBe(point!.ingest.n);
      expect(point!.roundTrips!.ingest.median).toBeGreaterThan(0);
      expect(point!.roundTrips!.select.n).toBe(point!.select.n);
      expect(point!.dbBytes).toBeGreaterThan(0);
      const [imported] = await runHostSuite({ sizes: [300], engines: ["lcm"], store, dir: join(dir, "pg-host"), contextLength: 8_000, turns: 3 });
      expect(imported).toMatchObject({ engine: "lcm", store: "postgres", mode: "imported" });
      expect(imported!.roundTrips!.median).toBeGreaterThan(0);
      const table = formatTable({ machine: finishMachineInfo(machineInfo()), settings: {}, targets: judgeTargets([point!], [imported!]), engine: [point!], host: [imported!] });
      expect(table).toContain("round trips per onTurnComplete");
      expect(table).toContain("lcm (postgres), history imported at open");
    } finally {
      await dropSchema(store.url, schema);
    }
  }, 180_000);
});

describe("settings", () => {
  it("measures 1k/10k/100k by default and 1M only behind BENCH_1M", () => {
    expect(readSettings({}).sizes).toEqual([1_000, 10_000, 100_000]);
    expect(readSettings({ BENCH_1M: "1" }).sizes).toEqual([1_000, 10_000, 100_000, 1_000_000]);
    expect(readSettings({ BENCH_HOST_SIZES: "none" }).hostSizes).toEqual([]);
    expect(() => readSettings({ BENCH_SIZES: "10k" })).toThrow(/BENCH_SIZES/);
    expect(() => readSettings({ BENCH_SIZES: "2000,1000" })).toThrow(/ascending/);
    expect(readSettings({}).pgSizes).toEqual([1_000, 10_000]);
    expect(readSettings({ BENCH_PG_SIZES: "none", BENCH_PG_HOST_SIZES: "none" })).toMatchObject({ pgSizes: [], pgHostSizes: [] });
    expect(() => readSettings({ BENCH_PG_URL: "mysql://x" })).toThrow(/BENCH_PG_URL/);
  });
});
