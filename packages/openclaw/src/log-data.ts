import { describeError } from "@context-engine/core";

const MAX_CAUSES = 5;

/** An error's message followed by its causes (`cause`, then the cause's cause…), so nothing that explains it is lost. */
export function describeWithCauses(error: unknown): string {
  const parts = [describeError(error)];
  let cause = error instanceof Error ? error.cause : undefined;
  for (let i = 0; cause !== undefined && i < MAX_CAUSES; i++) {
    parts.push(describeError(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join("; caused by: ");
}

/** A log line with the data an engine attached: errors with their causes, other values as JSON. */
export function withData(message: string, data?: Record<string, unknown>): string {
  if (!data) return message;
  const fields: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    let text: string;
    if (value instanceof Error) text = describeWithCauses(value);
    else if (typeof value === "string") text = value;
    else {
      try {
        text = JSON.stringify(value) ?? String(value);
      } catch {
        text = String(value);
      }
    }
    fields.push(`${key}=${text}`);
  }
  return fields.length ? `${message} (${fields.join(", ")})` : message;
}
