import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { writeOutputs } from "./main.js";
import type { BenchReport } from "./report.js";
import { judgeTargets } from "./targets.js";

// `pnpm --filter @context-engine/bench rerender <bench.json> [more.json …]`: the table, chart and HTML again from a
// saved run, written beside the first file (or to BENCH_OUT). Several files are parts of one run made one after the
// other (SQLite, then PostgreSQL): their figures are merged and the targets judged again over all of them.
const files = (process.argv.length > 2 ? process.argv.slice(2) : ["results/bench.json"]).map((f) => resolve(f));
const parts = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as BenchReport);
const first = parts[0]!;
const last = parts[parts.length - 1]!;
const engine = parts.flatMap((p) => p.engine);
const host = parts.flatMap((p) => p.host);
const report: BenchReport =
  parts.length === 1
    ? first
    : {
        machine: { ...first.machine, loadEnd: last.machine.loadEnd },
        settings: { parts: parts.map((p) => ({ date: p.machine.date, loadStart: p.machine.loadStart, loadEnd: p.machine.loadEnd, ...p.settings })) },
        targets: judgeTargets(engine, host),
        engine,
        host,
      };
await writeOutputs(report, process.env.BENCH_OUT ?? dirname(files[0]!));
