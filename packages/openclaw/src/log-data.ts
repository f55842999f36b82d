import { describeErrorWithCauses } from "@context-engine/core";

/** A log line with the data an engine attached: errors with their causes, other values as JSON. */
export function withData(message: string, data?: Record<string, unknown>): string {
  if (!data) return message;
  const fields: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    let text: string;
    if (value instanceof Error) text = describeErrorWithCauses(value);
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
