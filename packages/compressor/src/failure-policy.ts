import type { ChatModelErrorKind } from "@context-engine/core";
import { ChatModelError, describeError as describeAnyError, isServerError } from "@context-engine/core";

export { isServerError };

/**
 * What to do when a summary attempt fails, and for how long to leave the
 * summariser alone afterwards.
 *
 * Terminal kinds abort the compaction with the transcript unchanged: a
 * deterministic summary would silently replace real history although the
 * problem (bad key, no quota, provider down, unusable answer) will not go away
 * by itself, so the user is told instead. Every other kind falls back to the
 * deterministic summary so the conversation keeps fitting.
 */
export const TERMINAL_KINDS: ReadonlySet<ChatModelErrorKind> = new Set([
  "auth",
  "quota",
  "network",
  "overloaded",
  "empty",
  "truncated",
]);

export type FailureAction = "abort" | "fallback";

export function failureAction(kind: ChatModelErrorKind, abortOnFailure: boolean): FailureAction {
  if (TERMINAL_KINDS.has(kind)) return "abort";
  return abortOnFailure ? "abort" : "fallback";
}

/**
 * Cooldown ladders in seconds, by consecutive failures. Credentials and quota
 * rarely fix themselves within minutes; flaky transport usually does.
 */
const LADDERS: Record<string, readonly number[]> = {
  credentials: [600, 1_800, 3_600],
  transient: [30, 120, 600],
  capacity: [60, 300, 900],
};

function ladderFor(kind: ChatModelErrorKind): readonly number[] {
  switch (kind) {
    case "auth":
    case "quota":
      return LADDERS.credentials!;
    case "network":
    case "empty":
    case "refusal":
      return LADDERS.transient!;
    default:
      return LADDERS.capacity!;
  }
}

/** Cooldown after the `consecutive`-th failure in a row (1-based). */
export function cooldownSeconds(kind: ChatModelErrorKind, consecutive: number): number {
  const ladder = ladderFor(kind);
  return ladder[Math.min(Math.max(consecutive, 1), ladder.length) - 1]!;
}

/** Strikes or fallback summaries in a row that trip the anti-thrash breaker. */
export const BREAKER_TRIP = 2;
/** After this long a tripped breaker allows one probe compaction. */
export const BREAKER_RECOVERY_MS = 300_000;

/**
 * Classify any error thrown by a ChatModel. Hosts should throw
 * `ChatModelError`; for anything else we look at an HTTP status and the
 * message, as providers' own SDK errors carry them.
 */
export function classifyError(error: unknown): ChatModelErrorKind {
  const status = Number((error as { status?: unknown } | null)?.status);
  // A plain 5xx is a server failure worth a retry and then a fallback, not a
  // capacity verdict: only an explicit capacity answer (529, "overloaded",
  // "at capacity") counts as overloaded.
  if (isServerError(error)) return "unknown";
  if (ChatModelError.is(error)) return error.kind;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return error.name === "TimeoutError" ? "timeout" : "aborted";
  }
  if (status === 401 || status === 403) return "auth";
  if (status === 402) return "quota";
  if (status === 429) return "rate_limit";
  if (status === 408 || status === 504) return "timeout";
  if (status === 529) return "overloaded";
  if (status === 400 || status === 404 || status === 422) return "bad_request";
  const text = error instanceof Error ? error.message : String(error);
  if (/api key|unauthori[sz]ed|forbidden|permission/i.test(text)) return "auth";
  if (/quota|billing|insufficient.?funds|credit/i.test(text)) return "quota";
  if (CAPACITY.test(text)) return "overloaded";
  if (/timed? ?out|timeout/i.test(text)) return "timeout";
  if (/ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|network/i.test(text)) return "network";
  if (/context.?length|too many tokens|maximum context/i.test(text)) return "context_length";
  return "unknown";
}

const CAPACITY = /overloaded|at capacity|over capacity/i;

/** Core's description, cut to 300 characters: it goes into status lines and events. */
export function describeError(error: unknown): string {
  const text = describeAnyError(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
