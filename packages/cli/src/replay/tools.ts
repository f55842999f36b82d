import { isPlainObject } from "@context-engine/core";

/**
 * Recorded tool lists as the host accepts them. Recordings carry schemas with
 * `parameters: null` or `null` property entries (OpenHands fills every key);
 * the host rejects those, and the replay only needs the tools to be sent
 * (they count towards each request). Each tool is repaired or dropped with a note.
 */
export function replayTools(recorded: ReadonlyArray<Record<string, unknown>> | undefined): { tools: Array<Record<string, unknown>>; notes: string[] } {
  const tools: Array<Record<string, unknown>> = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  (recorded ?? []).forEach((tool, index) => {
    const fn = isPlainObject(tool.function) ? tool.function : tool;
    const name = fn.name;
    if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      notes.push(`recorded tool ${index} dropped: no valid name`);
      return;
    }
    if (seen.has(name)) {
      notes.push(`recorded tool ${name} listed twice; kept the first`);
      return;
    }
    seen.add(name);
    const parameters = isPlainObject(fn.parameters) ? dropNulls(fn.parameters) : {};
    if (parameters.type !== "object") parameters.type = "object";
    tools.push({
      type: "function",
      function: { name, ...(typeof fn.description === "string" ? { description: fn.description } : {}), parameters },
    });
  });
  return { tools, notes };
}

/** JSON-Schema objects without the `null` entries recorders add for unused keys. */
function dropNulls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null) continue;
    out[key] = isPlainObject(v) ? dropNulls(v) : Array.isArray(v) ? v.filter((x) => x !== null).map((x) => (isPlainObject(x) ? dropNulls(x) : x)) : v;
  }
  return out;
}
