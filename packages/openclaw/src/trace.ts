import { appendFileSync } from "node:fs";
import { createHash } from "node:crypto";
import type { Message } from "@context-engine/core";
import { fingerprint } from "./convert-to-openai.js";

/**
 * A debugging trace of what the adapter hands the engine (each assemble's lists, each commit's turn),
 * one JSON line per event, written only when CONTEXT_ENGINE_OPENCLAW_TRACE names a file. Messages are
 * shown by role, a short hash of their converted form and the head of their text: enough to see where a
 * list holds a message twice, without writing a conversation's content out whole.
 */
const file = typeof process !== "undefined" ? process.env?.CONTEXT_ENGINE_OPENCLAW_TRACE : undefined;

export const tracing = Boolean(file);

function textHead(m: Message): string {
  const c = (m as { content?: unknown }).content;
  const text = typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => (p as { text?: string })?.text ?? "").join(" ") : "";
  return text.replace(/\s+/g, " ").slice(0, 40);
}

export function traceList(list: readonly Message[]): string[] {
  return list.map((m) => `${m.role[0]}:${createHash("sha1").update(fingerprint(m)).digest("hex").slice(0, 8)}:${textHead(m)}`);
}

export function trace(event: string, data: Record<string, unknown>): void {
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), pid: process.pid, event, ...data })}\n`);
  } catch {
    // A trace must never break a turn.
  }
}
