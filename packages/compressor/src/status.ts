import type { EngineStatus } from "@context-engine/core";
import { blockedReason } from "./guards.js";
import type { CompactionRecord, SessionState, SummaryRejectionRecord } from "./session-state.js";

export interface CompressorStatus extends EngineStatus {
  sessionId: string;
  hasPreviousSummary: boolean;
  summaryMode: "model" | "extractive";
  summaryModel: string | null;
  /** Why automatic compaction is blocked right now (`cooldown:<s>`, `ineffective`), else null. */
  blockedReason: string | null;
  cooldownSeconds: number;
  lastSummaryError: string | null;
  strikes: number;
  fallbackStreak: number;
  lastCompaction: CompactionRecord | null;
  /** The last model answer the summary acceptance checks rejected (it then fell back or aborted). */
  lastRejection: SummaryRejectionRecord | null;
}

/** The compressor's own part of `getStatus()`, for the active session's state (absent before its first compaction). */
export function sessionStatus(
  base: EngineStatus,
  sessionId: string,
  state: SessionState | undefined,
  summaryModel: string | null | false,
): CompressorStatus {
  const now = Date.now();
  return {
    ...base,
    sessionId,
    hasPreviousSummary: Boolean(state?.previousSummary),
    summaryMode: summaryModel === false ? "extractive" : "model",
    summaryModel: summaryModel === false ? null : summaryModel,
    blockedReason: blockedReason(state),
    cooldownSeconds: state && state.cooldownUntil > now ? Math.ceil((state.cooldownUntil - now) / 1000) : 0,
    lastSummaryError: state?.lastSummaryError ?? null,
    strikes: state?.strikes ?? 0,
    fallbackStreak: state?.fallbackStreak ?? 0,
    lastCompaction: state?.lastCompaction ?? null,
    lastRejection: state?.lastRejection ?? null,
  };
}
