import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { writeOutputs } from "./main.js";
import type { BenchReport } from "./report.js";

// `pnpm --filter @context-engine/bench rerender <bench.json>`: the table, chart and HTML again from a saved run.
const file = resolve(process.argv[2] ?? "results/bench.json");
const report = JSON.parse(readFileSync(file, "utf8")) as BenchReport;
await writeOutputs(report, dirname(file));
