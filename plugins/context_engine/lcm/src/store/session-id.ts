import { redactSecrets } from "@context-engine/core";

/**
 * The one rule for a session id, on every store: a non-empty string without
 * NUL (PostgreSQL text cannot hold it) and without unpaired surrogates (UTF-8
 * cannot, and a driver would silently store another id). Refused before any
 * query, with a message that says why, so a bad id is never reported as a
 * store failure.
 */
export class InvalidSessionIdError extends Error {
  override readonly name = "InvalidSessionIdError";
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `sessionId` cannot be stored, or null when it can. */
export function sessionIdProblem(sessionId: unknown): string | null {
  if (typeof sessionId !== "string") return `a string (got ${sessionId === null ? "null" : typeof sessionId})`;
  if (sessionId.length === 0) return "a non-empty string";
  if (sessionId.includes("\u0000")) return "no NUL character (\\u0000)";
  if (LONE_SURROGATE.test(sessionId)) return "well-formed Unicode (it holds an unpaired surrogate)";
  return null;
}

/** Throw `InvalidSessionIdError` naming the id (shortened, redacted, escaped) and the rule it breaks. */
export function assertStorableSessionId(sessionId: unknown): asserts sessionId is string {
  const problem = sessionIdProblem(sessionId);
  if (problem === null) return;
  const shown = typeof sessionId === "string" ? redactSecrets(JSON.stringify(sessionId.slice(0, 80))) : String(sessionId);
  throw new InvalidSessionIdError(`lcm: session id ${shown} cannot be stored: it must be ${problem}`);
}
