import { describeError } from "./errors.js";
import { redactSecrets } from "./redact/index.js";

const MAX_CAUSES = 5;
const MAX_GROUPED = 5;

/** One error's own line: its message, and for an AggregateError (a refused dual-stack connect) the errors it groups. */
function ownLine(error: unknown): string {
  const line = describeError(error);
  const grouped = error instanceof AggregateError && Array.isArray(error.errors) ? error.errors.slice(0, MAX_GROUPED) : [];
  return grouped.length ? `${line} (${grouped.map((e) => describeError(e)).join("; ")})` : line;
}

/**
 * An error's message followed by its causes (`cause`, the cause's cause…, at most five), with
 * secrets redacted: a log line keeps what explains a failure (the driver's ECONNREFUSED under "could
 * not store the turn") without a password or key a cause may quote. Never throws.
 */
export function describeErrorWithCauses(error: unknown): string {
  try {
    const parts = [ownLine(error)];
    const seen = new Set<unknown>([error]);
    let cause = error instanceof Error ? error.cause : undefined;
    for (let i = 0; cause !== undefined && !seen.has(cause) && i < MAX_CAUSES; i++) {
      seen.add(cause);
      parts.push(ownLine(cause));
      cause = cause instanceof Error ? cause.cause : undefined;
    }
    return redactSecrets(parts.join("; caused by: "));
  } catch {
    return describeError(error);
  }
}
