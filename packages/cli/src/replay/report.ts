import type { EngineRunMetrics } from "./metrics.js";

export interface ReplaySessionResult {
  id: string;
  format: string;
  source: { path: string; license?: string; origin?: string };
  /** Messages in the recorded session. */
  messages: number;
  /** Turns replayed (a turn starts at each real user message). */
  turns: number;
  /** What the session reader had to fix to make the recording a valid conversation. */
  repairs?: string[];
  runs: EngineRunMetrics[];
}

export interface EngineTotals {
  engine: string;
  sessions: number;
  requests: number;
  tokensSent: number;
  peakContext: number;
  meanContext: number;
  compactions: number;
  compactionFailures: number;
  compactionTimeMs: number;
  overBudget: number;
  prefixReuse: number | null;
  lossless: boolean;
  recoverable: { checked: number; recovered: number } | null;
  errors: number;
}

/** The whole replay: what `--json` prints and the HTML report renders. */
export interface ReplayReport {
  schema: "context-engine/replay-report@1";
  generatedAt: string;
  cli: { version: string };
  contextLength: number;
  engines: string[];
  sessions: ReplaySessionResult[];
  totals: EngineTotals[];
  /** True when every run passed its checks (no request over budget, nothing lost, no engine error). */
  ok: boolean;
  reportPath?: string;
}

/** Per-engine totals over all sessions. Prefix reuse is re-weighted by tokens, not averaged. */
export function computeTotals(engines: readonly string[], sessions: readonly ReplaySessionResult[]): EngineTotals[] {
  return engines.map((engine) => {
    const runs = sessions.flatMap((s) => s.runs.filter((r) => r.engine === engine));
    const requests = runs.reduce((n, r) => n + r.summary.requests, 0);
    const tokensSent = runs.reduce((n, r) => n + r.summary.tokensSent, 0);
    let reused = 0;
    let previous = 0;
    for (const run of runs) {
      for (let i = 1; i < run.requests.length; i++) {
        reused += run.requests[i]!.prefixReusedTokens;
        previous += run.requests[i]!.prefixBaseTokens;
      }
    }
    const recRuns = runs.filter((r) => r.recoverability);
    return {
      engine,
      sessions: runs.length,
      requests,
      tokensSent,
      peakContext: runs.reduce((m, r) => Math.max(m, r.summary.peakContext), 0),
      meanContext: requests ? tokensSent / requests : 0,
      compactions: runs.reduce((n, r) => n + r.summary.compactions, 0),
      compactionFailures: runs.reduce((n, r) => n + r.summary.compactionFailures, 0),
      compactionTimeMs: runs.reduce((n, r) => n + r.summary.compactionTimeMs, 0),
      overBudget: runs.reduce((n, r) => n + r.summary.overBudget, 0),
      prefixReuse: previous > 0 ? reused / previous : null,
      lossless: runs.some((r) => r.lossless),
      recoverable: recRuns.length
        ? {
            checked: recRuns.reduce((n, r) => n + r.recoverability!.checked, 0),
            recovered: recRuns.reduce((n, r) => n + r.recoverability!.recovered, 0),
          }
        : null,
      errors: runs.reduce((n, r) => n + r.errors.length, 0),
    };
  });
}

export function reportOk(sessions: readonly ReplaySessionResult[]): boolean {
  return sessions.every((s) => s.runs.every((r) => r.errors.length === 0));
}
