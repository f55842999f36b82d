import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runEngineSuite } from "./engine-suite.js";
import type { BenchStore, EngineCheckpoint } from "./engine-suite.js";
import { benchSchema, dropSchema } from "./round-trips.js";
import { resumeThroughHost, runHostSuite } from "./host-suite.js";
import type { HostResult } from "./host-suite.js";
import type { Message } from "@context-engine/core";
import type { LcmEngine } from "@context-engine/lcm";
import { LoopbackChatServer } from "./loopback-server.js";
import { finishMachineInfo, machineInfo } from "./machine.js";
import { chartHtml, formatTable, renderChartSvg } from "./report.js";
import type { BenchReport } from "./report.js";
import { readSettings } from "./settings.js";
import { judgeTargets } from "./targets.js";

/** `pnpm bench`: the engine suite, then the host suite, then the table, JSON and chart. */
async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const machine = machineInfo();
  const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  log(
    `sizes ${settings.sizes.join(", ")}; host sizes ${settings.hostSizes.join(", ") || "none"}; PostgreSQL sizes ${settings.pgSizes.join(", ") || "none"}, ` +
      `imported ${settings.pgHostSizes.join(", ") || "none"}; context ${settings.contextLength}; load ${machine.loadStart.join(" ")}`,
  );
  const work = mkdtempSync(join(tmpdir(), "context-engine-bench-"));
  try {
    const server = await new LoopbackChatServer().start();
    const host: HostResult[] = [];
    let engine: EngineCheckpoint[] = [];
    /** The grown conversation continued through AgentHost at the sizes where imported sessions are measured too (same store). */
    const resumeAt =
      (sizes: number[], store: BenchStore) =>
      async ({ engine: lcm, sessionId, live, messages }: { engine: LcmEngine; sessionId: string; live: Message[]; messages: number }) => {
        if (!sizes.some((s) => s <= messages && messages < s * 1.1)) return { live, addedMessages: [] };
        const r = await resumeThroughHost(lcm, sessionId, live, messages, server, settings.contextLength, settings.hostTurns, store);
        host.push(r.result);
        const cpu = r.result.perTurn.cpu;
        log(`host: lcm (${store.kind}) resumed ${messages}: p50 ${r.result.perTurn.median.toFixed(2)} ms / p95 ${r.result.perTurn.p95.toFixed(2)} ms (CPU ${cpu.median.toFixed(2)} / ${cpu.p95.toFixed(2)}), load ${r.result.perTurn.load}`);
        return r;
      };
    try {
      if (settings.sizes.length) engine = await runEngineSuite({
        sizes: settings.sizes,
        dir: join(work, "engine"),
        contextLength: settings.contextLength,
        log,
        // LCM through the host on the conversation grown turn by turn, at every size the host suite measures.
        afterCheckpoint: resumeAt(settings.hostSizes, { kind: "sqlite" }),
      });
      if (settings.hostSizes.length) {
        host.push(...(await runHostSuite({ sizes: settings.hostSizes, dir: join(work, "host"), contextLength: settings.contextLength, turns: settings.hostTurns, server, log })));
      }
      if (settings.pgSizes.length) {
        const run = (store: BenchStore) =>
          runEngineSuite({ sizes: settings.pgSizes, dir: join(work, "engine-pg"), store, contextLength: settings.contextLength, log, afterCheckpoint: resumeAt(settings.pgHostSizes, store) });
        engine.push(...(await onPostgres(settings.pgUrl, "engine", run, settings.pgKeep)));
      }
      if (settings.pgHostSizes.length) {
        const run = (store: BenchStore) =>
          runHostSuite({ sizes: settings.pgHostSizes, engines: ["lcm"], store, dir: join(work, "host-pg"), contextLength: settings.contextLength, turns: settings.hostTurns, server, log });
        host.push(...(await onPostgres(settings.pgUrl, "host", run, settings.pgKeep)));
      }
    } finally {
      await server.stop();
    }
    const report: BenchReport = { machine: finishMachineInfo(machine), settings: { ...settings }, targets: judgeTargets(engine, host), engine, host };
    await writeOutputs(report, settings.outDir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Run on a PostgreSQL schema of the run's own, dropped afterwards unless `keep` (to inspect it). */
async function onPostgres<T>(url: string, label: string, fn: (store: BenchStore) => Promise<T>, keep: boolean): Promise<T> {
  const schema = benchSchema(label);
  try {
    return await fn({ kind: "postgres", url, schema });
  } finally {
    if (keep) process.stderr.write(`[bench] kept PostgreSQL schema ${schema} (BENCH_PG_KEEP=1)\n`);
    else await dropSchema(url, schema);
  }
}

export async function writeOutputs(report: BenchReport, outDir: string): Promise<string> {
  const table = formatTable(report);
  process.stdout.write(`${table}\n`);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "bench.json"), `${JSON.stringify(report, null, 2)}\n`);
  const svg = await renderChartSvg(report);
  writeFileSync(join(outDir, "bench.svg"), svg);
  writeFileSync(join(outDir, "bench.html"), chartHtml(report, svg, table));
  process.stderr.write(`wrote ${join(outDir, "bench.json")}, bench.svg, bench.html\n`);
  return table;
}

if (resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
