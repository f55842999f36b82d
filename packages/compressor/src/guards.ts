import type { ChatModelErrorKind, Logger } from "@context-engine/core";
import { BREAKER_RECOVERY_MS, BREAKER_TRIP, cooldownSeconds, describeError, failureAction } from "./failure-policy.js";
import type { CompactionRecord, SessionState } from "./session-state.js";

/**
 * The guards that keep a failing or useless summariser from being called
 * turn after turn: the failure cooldown and the anti-thrash breaker.
 */

/** Why automatic compaction is blocked for this session now (`cooldown:<s>`, `ineffective`), else null. */
export function blockedReason(state: SessionState | undefined, now = Date.now()): string | null {
  if (!state) return null;
  if (state.cooldownUntil > now) return `cooldown:${Math.ceil((state.cooldownUntil - now) / 1000)}`;
  if (state.strikes >= BREAKER_TRIP || state.fallbackStreak >= BREAKER_TRIP) {
    if (!state.breakerDeadline || state.breakerDeadline - now > BREAKER_RECOVERY_MS) {
      state.breakerDeadline = now + BREAKER_RECOVERY_MS;
      return "ineffective";
    }
    if (now < state.breakerDeadline) return "ineffective";
    // Recovery: allow one probe; one more bad compaction trips the breaker again.
    state.breakerDeadline = 0;
    state.strikes = Math.min(state.strikes, BREAKER_TRIP - 1);
    state.fallbackStreak = Math.min(state.fallbackStreak, BREAKER_TRIP - 1);
    return null;
  }
  state.breakerDeadline = 0;
  return null;
}

/** A summary attempt failed: climb the cooldown ladder (never shortening a running cooldown). */
export function recordFailure(state: SessionState, kind: ChatModelErrorKind, error: unknown, now = Date.now()): void {
  state.consecutiveFailures++;
  const seconds = cooldownSeconds(kind, state.consecutiveFailures);
  state.cooldownUntil = Math.max(state.cooldownUntil, now + seconds * 1000);
  state.cooldownReason = kind;
  state.lastSummaryError = `${kind}: ${describeError(error)}`;
  if (failureAction(kind, false) === "abort") state.terminalFailure = kind;
}

/** A summary succeeded: every failure guard is lifted. */
export function recordSuccess(state: SessionState): void {
  state.fallbackStreak = 0;
  state.cooldownUntil = 0;
  state.cooldownReason = null;
  state.consecutiveFailures = 0;
  state.terminalFailure = null;
  state.lastSummaryError = null;
}

/** The route (model, provider, endpoint) changed: its failures say nothing about the new one. */
export function resetRouteGuards(state: SessionState): void {
  recordSuccess(state);
  state.breakerDeadline = 0;
  state.useMainModel = false;
}

/** A compaction boundary (old session → new): the old session's guards still apply. */
export function carryGuards(from: SessionState, to: SessionState): void {
  to.strikes = Math.max(to.strikes, from.strikes);
  to.fallbackStreak = Math.max(to.fallbackStreak, from.fallbackStreak);
  to.cooldownUntil = Math.max(to.cooldownUntil, from.cooldownUntil);
  to.cooldownReason ??= from.cooldownReason;
  to.consecutiveFailures = Math.max(to.consecutiveFailures, from.consecutiveFailures);
  to.terminalFailure ??= from.terminalFailure;
  to.lastSummaryError ??= from.lastSummaryError;
  to.useMainModel ||= from.useMainModel;
  to.compactions = Math.max(to.compactions, from.compactions);
  to.verifyArmed ||= from.verifyArmed;
}

/** A compaction was committed: the summary to update next time, the verdict armed, the guards told how it was written. */
export function commitCompaction(state: SessionState, summary: string, record: CompactionRecord): void {
  state.commitSeq++;
  state.previousSummary = summary;
  state.compactions++;
  state.verifyArmed = true;
  if (record.mode === "model") recordSuccess(state);
  else if (record.mode === "fallback") state.fallbackStreak++;
  state.lastCompaction = record;
}

/** The first real usage after a compaction is its verdict: still over the threshold is a strike, under it clears them. */
export function recordVerdict(state: SessionState, promptTokens: number, thresholdTokens: number, logger: Logger): void {
  if (promptTokens > 0 && thresholdTokens > 0) {
    if (state.verifyArmed && promptTokens >= thresholdTokens) {
      state.strikes++;
      logger.warn("compaction did not bring the prompt under the threshold", { promptTokens, thresholdTokens, strikes: state.strikes });
    } else if (promptTokens < thresholdTokens) {
      state.strikes = 0;
    }
  }
  state.verifyArmed = false;
}
