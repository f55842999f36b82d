import type { EngineCheckpoint } from "./engine-suite.js";

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

/** The size targets are judged at: 100k when measured, else the largest (labelled by `at`). */
function reference(points: readonly EngineCheckpoint[]): EngineCheckpoint | undefined {
  return points.find((p) => p.messages >= 100_000 && p.messages < 200_000) ?? points[points.length - 1];
}

/** The issue #17 targets, judged on the engine suite's figures. Printed, never asserted. */
export function judgeTargets(points: readonly EngineCheckpoint[]): TargetResult[] {
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
  return [
    judge("ingest", "onTurnComplete p50", ref.ingest.median, "ms", 2, ref.messages, ref.ingestCpu.median),
    judge("trigger", "compaction trigger p95", ref.trigger.p95, "ms", 10, ref.messages, ref.triggerCpu.p95),
    judge("noop_compress", "compress() with nothing new, p95 (worst size)", noopWorst.noopCompress.p95, "ms", 2, noopWorst.messages, noopWorst.noopCompressCpu.p95),
    judge("regex_complete", "complete regex search p95", ref.regexComplete.p95, "ms", 100, ref.messages, ref.regexCompleteCpu.p95),
    judge("db_size", "database bytes / raw text bytes", last.dbRatio, "×", 2, last.messages),
    // Flat: heap after GC at the largest size within 1.5× of the smallest, while history grew.
    judge("memory_flat", `heap after GC, largest / smallest size (${first.messages} → ${last.messages})`, last.heapBytes / first.heapBytes, "×", 1.5, last.messages),
  ];
}
