import type { EngineCheckpoint } from "./engine-suite.js";
import type { HostResult } from "./host-suite.js";
import { costRatios } from "./ratios.js";

export interface TargetResult {
  name: string;
  /** What is compared, in words. */
  measure: string;
  value: number;
  /** The same figure in CPU time, where measured (judged on wall time all the same). */
  cpu?: number;
  unit: string;
  limit: number;
  /** The history length the figure was taken at. */
  at: number;
  status: "PASS" | "MISS";
}

function onPage1(t: TargetResult, p: EngineCheckpoint): TargetResult {
  return p.regexOldestOnPage1 === p.grep.regex_oldest.n ? t : { ...t, status: "MISS" };
}

/** The size targets are judged at: 100k when measured, else the largest (labelled by `at`). SQLite only. */
function reference(points: readonly EngineCheckpoint[]): EngineCheckpoint | undefined {
  return points.find((p) => p.messages >= 100_000 && p.messages < 200_000) ?? points[points.length - 1];
}

/** The issue #17 and #34 targets, judged on the SQLite figures (PostgreSQL's are published beside them). Printed, never asserted. */
export function judgeTargets(all: readonly EngineCheckpoint[], host: readonly HostResult[] = []): TargetResult[] {
  const points = all.filter((p) => p.store === "sqlite");
  const ref = reference(points);
  if (!ref) return [];
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const judge = (name: string, measure: string, value: number, unit: string, limit: number, at: number, cpu?: number): TargetResult => ({
    name,
    measure,
    value,
    ...(cpu !== undefined ? { cpu } : {}),
    unit,
    limit,
    at,
    status: Number.isFinite(value) && value <= limit ? "PASS" : "MISS",
  });
  const noopWorst = points.reduce((a, p) => (p.noopCompress.p95 > a.noopCompress.p95 ? p : a), first);
  const targets = [
    judge("ingest", "onTurnComplete p50", ref.ingest.median, "ms", 2, ref.messages, ref.ingest.cpu.median),
    // Issue #33: ingest by turn costs O(new messages), judged on CPU time (load-independent).
    judge("ingest_cpu", "onTurnComplete CPU p50", ref.ingest.cpu.median, "ms", 1, ref.messages, ref.ingest.cpu.median),
    // What the host waits for at the threshold; the background work before it is its own row (never hidden).
    judge("trigger", "compaction trigger (compress() at the threshold) p95", ref.compress.p95, "ms", 10, ref.messages, ref.compress.cpu.p95),
    judge("noop_compress", "compress() with nothing new, p95 (worst size)", noopWorst.noopCompress.p95, "ms", 2, noopWorst.messages, noopWorst.noopCompress.cpu.p95),
    judge("regex_complete", "complete regex search p95", ref.regexComplete.p95, "ms", 100, ref.messages, ref.regexComplete.cpu.p95),
    // A MISS too when any timed call did not have the oldest message on page 1.
    onPage1(
      judge("regex_oldest", `regex for a literal only in the oldest message, page 1 p95 (on page 1 in ${ref.regexOldestOnPage1} of ${ref.grep.regex_oldest.n})`, ref.grep.regex_oldest.p95, "ms", 100, ref.messages, ref.grep.regex_oldest.cpu.p95),
      ref,
    ),
    judge("db_size", "database bytes / raw text bytes", last.dbRatio, "×", 2, last.messages),
    // Flat: heap after GC at the largest size within 1.5× of the smallest, while history grew.
    judge("memory_flat", `heap after GC, largest / smallest size (${first.messages} → ${last.messages})`, last.heapBytes / first.heapBytes, "×", 1.5, last.messages),
  ];
  const pg = all.filter((p) => p.store === "postgres").at(-1);
  if (pg) targets.push(judge("db_size_postgres", "PostgreSQL schema bytes / raw text bytes", pg.dbRatio, "×", 3, pg.messages));
  const imported = host.filter((h) => h.engine === "lcm" && h.store === "sqlite" && h.mode === "imported").at(-1);
  if (imported) {
    targets.push(judge("imported_first_turn", "first turn with the history handed over (host's own time)", imported.firstTurnMs, "ms", 1_000, imported.history, imported.firstTurnCpuMs));
    targets.push(judge("imported_first_turn_engine", "first turn with the history handed over, inside the engine's hooks", imported.firstTurnEngineMs, "ms", 1_000, imported.history, imported.firstTurnEngineCpuMs));
  }
  const ratios = costRatios(host);
  if (ratios.importedOverGrown) {
    targets.push(judge("imported_vs_grown", "CPU per later turn, imported / grown turn by turn", ratios.importedOverGrown.value, "×", 1.5, ratios.importedOverGrown.size));
  }
  return targets;
}
