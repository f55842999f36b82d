import type { Message } from "@context-engine/core";
import type { CompactionDetail } from "./compaction-detail.js";
import type { EvidenceRecall } from "./evidence.js";
import type { ReplayObservation } from "./observations.js";
import { prefixReuse, snapshotRequest, type PrefixSnapshot } from "./prefix.js";

export interface RequestMetric {
  /** 1-based request number within the run. */
  index: number;
  turn: number;
  tokens: number;
  messages: number;
  overBudget: boolean;
  /** Share of the previous request's tokens repeated unchanged at the start (null for the first). */
  prefixReuse: number | null;
  prefixReusedTokens: number;
  /** Message tokens of the previous request: the base of `prefixReuse` (0 for the first). */
  prefixBaseTokens: number;
  /** The engine's selectContext replaced this request's messages (`applied`), was rejected, or is not implemented. */
  selection?: "applied" | "ignored" | "not_implemented";
  /** A compaction (or a tool-result pruning) changed the conversation since the previous request. */
  afterCompaction: boolean;
}

export interface CompactionMetric {
  /** The request number the compaction preceded (the next request sent). */
  beforeRequest: number;
  turn: number;
  outcome: "committed" | "unchanged" | "failed" | "timed_out";
  durationMs: number;
  beforeTokens: number | null;
  afterTokens: number | null;
  trigger?: string;
  reason?: string;
  /** What a committed compaction replaced and the summary it put in, when the replay could see both lists. */
  detail?: CompactionDetail;
  /** The host ledger's entry for a committed compaction. */
  ledger?: CompactionLedgerFacts;
}

/** The host ledger's facts of one committed compaction (`session.compactions()`). */
export interface CompactionLedgerFacts {
  /** `c1`, `c2`, … in the session's ledger. */
  id: string;
  engine: string;
  focusTopic: string | null;
  /** Messages that left the context (the ledger keeps them whole) and messages put in. */
  removed: number;
  inserted: number;
  /** Prompt-cache impact: bytes of the request prefix identical before and after. */
  cache: { bytesBefore: number; bytesAfter: number; identicalPrefixBytes: number };
}


export interface PruneMetric {
  /** The request number the pruning preceded. */
  beforeRequest: number;
  turn: number;
  pruned: number;
  beforeTokens: number;
  afterTokens: number;
}

export interface RecoverabilityResult {
  /** How the check was done: `lcm_grep+lcm_expand`, `engine`, … */
  method: string;
  checked: number;
  recovered: number;
  /** How the recovered messages were found. */
  via?: { inContext: number; expandedSummaries: number; searched: number };
  /** The first few messages that could not be recovered. */
  missing: Array<{ index: number; role: string; preview: string }>;
  /** Every index (into the run's messages) not recovered; used for the evidence figure, left out of the report. */
  lost?: number[];
}

export interface EngineRunSummary {
  requests: number;
  turns: number;
  tokensSent: number;
  peakContext: number;
  meanContext: number;
  finalContext: number;
  compactions: number;
  compactionFailures: number;
  compactionTimeMs: number;
  maxCompactionMs: number;
  overBudget: number;
  /** Token-weighted share of each request's predecessor repeated at its start. */
  prefixReuse: number | null;
  /** The same, leaving out requests right after a compaction (which must rewrite the prefix). */
  prefixReuseSteady: number | null;
  /** Passes that trimmed old tool results without compacting. */
  toolResultPrunes: number;
  engineToolCalls: number;
  selectionsApplied: number;
  selectionsIgnored: number;
  wallMs: number;
}

export interface EngineRunMetrics {
  engine: string;
  sessionId: string;
  contextLength: number;
  thresholdTokens: number | null;
  lossless: boolean;
  summary: EngineRunSummary;
  requests: RequestMetric[];
  compactions: CompactionMetric[];
  prunes: PruneMetric[];
  recoverability: RecoverabilityResult | null;
  /** Evidence recall for sessions whose data has questions with evidence (LoCoMo); absent otherwise. */
  evidence?: EvidenceRecall;
  /** The conversation this run wrote to, when the engine's store outlives the replay (a file or schema from config.yaml). */
  conversation?: { id: string; store: string };
  /** Problems that make the run fail its checks (engine exceptions, lost messages). */
  errors: string[];
  /** Notes on replay fidelity (recorded steps not replayed, synthetic results). */
  notes: string[];
}

/**
 * Folds one engine run's observations into metrics. Keeps only the previous
 * request's fingerprint, so memory stays flat on long replays.
 */
export class MetricsCollector {
  readonly #countMessage: (m: Message) => number;
  readonly #contextLength: number;
  #previous: PrefixSnapshot | null = null;
  #compactedSinceLast = false;
  readonly #requests: RequestMetric[] = [];
  readonly #compactions: CompactionMetric[] = [];
  readonly #prunes: PruneMetric[] = [];
  readonly #turns = new Set<number>();
  #engineToolCalls = 0;
  #refused = 0;
  readonly #warnings = new Map<string, number>();
  readonly #engineErrors = new Map<string, number>();
  #selectionsApplied = 0;
  #selectionsIgnored = 0;
  #reusedTokens = 0;
  #previousTokens = 0;
  #steadyReused = 0;
  #steadyPrevious = 0;
  readonly notes: string[] = [];
  readonly errors: string[] = [];

  constructor(options: { contextLength: number; countMessage: (m: Message) => number }) {
    this.#contextLength = options.contextLength;
    this.#countMessage = options.countMessage;
  }

  observe(obs: ReplayObservation): void {
    switch (obs.type) {
      case "request":
        this.#onRequest(obs);
        break;
      case "compaction":
        this.#compactions.push({
          beforeRequest: this.#requests.length + 1,
          turn: obs.turn,
          outcome: obs.outcome,
          durationMs: obs.durationMs,
          beforeTokens: obs.beforeTokens ?? null,
          afterTokens: obs.afterTokens ?? null,
          ...(obs.trigger ? { trigger: obs.trigger } : {}),
          ...(obs.reason ? { reason: obs.reason } : {}),
          ...(obs.detail ? { detail: obs.detail } : {}),
          ...(obs.ledger ? { ledger: obs.ledger } : {}),
        });
        if (obs.outcome === "committed") this.#compactedSinceLast = true;
        break;
      case "pruned":
        this.#prunes.push({ beforeRequest: this.#requests.length + 1, turn: obs.turn, pruned: obs.pruned, beforeTokens: obs.beforeTokens, afterTokens: obs.afterTokens });
        this.#compactedSinceLast = true;
        break;
      case "refused":
        this.#refused++;
        this.#turns.add(obs.turn);
        break;
      case "selection":
        if (obs.applied) this.#selectionsApplied++;
        else this.#selectionsIgnored++;
        break;
      case "engine_tool":
        this.#engineToolCalls++;
        break;
      case "turn_completed":
        this.#turns.add(obs.turn);
        break;
      case "warning":
        bump(this.#warnings, obs.message);
        break;
      case "engine_error":
        bump(this.#engineErrors, obs.message);
        break;
    }
  }

  #onRequest(obs: Extract<ReplayObservation, { type: "request" }>): void {
    const snap = snapshotRequest(obs.messages, this.#countMessage);
    const tokens = obs.tokens ?? snap.total + (obs.toolTokens ?? 0);
    let share: number | null = null;
    let reused = 0;
    if (this.#previous) {
      const r = prefixReuse(this.#previous, snap);
      share = r.share;
      reused = r.tokens;
      this.#reusedTokens += r.tokens;
      this.#previousTokens += this.#previous.total;
      if (!this.#compactedSinceLast) {
        this.#steadyReused += r.tokens;
        this.#steadyPrevious += this.#previous.total;
      }
    }
    this.#turns.add(obs.turn);
    this.#requests.push({
      index: this.#requests.length + 1,
      turn: obs.turn,
      tokens,
      messages: obs.messages.length,
      overBudget: this.#contextLength > 0 && tokens > this.#contextLength,
      prefixReuse: share,
      prefixReusedTokens: reused,
      prefixBaseTokens: this.#previous?.total ?? 0,
      afterCompaction: this.#compactedSinceLast,
      ...(obs.selection ? { selection: obs.selection } : {}),
    });
    this.#previous = snap;
    this.#compactedSinceLast = false;
  }

  get requestCount(): number {
    return this.#requests.length;
  }

  finish(meta: {
    engine: string;
    sessionId: string;
    thresholdTokens: number | null;
    lossless: boolean;
    recoverability: RecoverabilityResult | null;
    evidence?: EvidenceRecall | null;
    wallMs: number;
  }): EngineRunMetrics {
    const reqs = this.#requests;
    const tokensSent = reqs.reduce((s, r) => s + r.tokens, 0);
    const committed = this.#compactions.filter((c) => c.outcome === "committed");
    const timed = this.#compactions;
    const overBudget = reqs.filter((r) => r.overBudget).length + this.#refused;
    const errors = [...this.errors, ...counted(this.#engineErrors)];
    if (overBudget > 0) {
      const refused = this.#refused ? ` (${this.#refused} refused by the host, not sent)` : "";
      errors.push(`${overBudget} request(s) exceeded the ${this.#contextLength}-token context length${refused}`);
    }
    // Prefix breaks with no compaction to explain them cost prompt-cache hits for nothing.
    const breaks = reqs.filter((r) => r.prefixReuse !== null && r.prefixReuse < 0.5 && !r.afterCompaction);
    if (breaks.length > 0) {
      const bySelection = breaks.filter((r) => r.selection === "applied").length;
      this.notes.push(
        `${breaks.length} request(s) kept less than half of the previous request's prefix without a compaction` +
          (bySelection ? ` (${bySelection} with the engine's selectContext applied)` : ""),
      );
    }
    const rec = meta.recoverability;
    if (rec && rec.recovered < rec.checked) {
      const lost = rec.lost ?? rec.missing.map((m) => m.index);
      const named = lost.length ? `: message${lost.length === 1 ? "" : "s"} ${lost.slice(0, 30).map((i) => `#${i}`).join(", ")}${lost.length > 30 ? ` and ${lost.length - 30} more` : ""}` : "";
      errors.push(`${rec.checked - rec.recovered} of ${rec.checked} message(s) are no longer recoverable${named}`);
    }
    return {
      engine: meta.engine,
      sessionId: meta.sessionId,
      contextLength: this.#contextLength,
      thresholdTokens: meta.thresholdTokens,
      lossless: meta.lossless,
      summary: {
        requests: reqs.length,
        turns: this.#turns.size,
        tokensSent,
        peakContext: reqs.reduce((m, r) => Math.max(m, r.tokens), 0),
        meanContext: reqs.length ? tokensSent / reqs.length : 0,
        finalContext: reqs.at(-1)?.tokens ?? 0,
        compactions: committed.length,
        compactionFailures: this.#compactions.filter((c) => c.outcome === "failed" || c.outcome === "timed_out").length,
        compactionTimeMs: timed.reduce((s, c) => s + c.durationMs, 0),
        maxCompactionMs: timed.reduce((m, c) => Math.max(m, c.durationMs), 0),
        overBudget,
        prefixReuse: this.#previousTokens > 0 ? this.#reusedTokens / this.#previousTokens : null,
        prefixReuseSteady: this.#steadyPrevious > 0 ? this.#steadyReused / this.#steadyPrevious : null,
        toolResultPrunes: this.#prunes.length,
        engineToolCalls: this.#engineToolCalls,
        selectionsApplied: this.#selectionsApplied,
        selectionsIgnored: this.#selectionsIgnored,
        wallMs: meta.wallMs,
      },
      requests: [...reqs],
      compactions: [...this.#compactions],
      prunes: [...this.#prunes],
      recoverability: rec,
      ...(meta.evidence ? { evidence: meta.evidence } : {}),
      errors,
      notes: [...this.notes, ...counted(this.#warnings)],
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function counted(map: Map<string, number>): string[] {
  return [...map].map(([text, n]) => (n > 1 ? `${text} (×${n})` : text));
}
