import { createHash } from "node:crypto";

/** Opaque, tamper-evident-enough pagination state bound to the query it came from. */
export interface CursorState {
  /** Hash of the query parameters, so a cursor is not reused with another query. */
  q: string;
  /** Full text: offset into the ranked candidates. */
  o?: number;
  /** Regex: phase (summaries first, then messages). */
  p?: "s" | "m";
  /** Regex: scan messages with id below this. */
  id?: number;
}

export function queryKey(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 12);
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString("base64url");
}

export function decodeCursor(cursor: string, expectedKey: string): CursorState {
  let state: CursorState;
  try {
    state = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as CursorState;
  } catch {
    throw new Error("cursor is not valid (pass back the nextCursor of a previous result unchanged)");
  }
  if (!state || typeof state !== "object" || state.q !== expectedKey) {
    throw new Error("cursor belongs to a different query; repeat the same query with it, or drop the cursor");
  }
  return state;
}
