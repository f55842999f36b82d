import { createSecretRedactor, type Message, type SecretRedactor, type SecretRuleOptions } from "@context-engine/core";
import { messageDigest } from "./digest.js";
import type { LedgerEntry, PlacedMessage } from "./types.js";

/**
 * What the ledger writes to disk: the entry with every secret the core rules
 * find (the same rules LCM applies before storing and the compressor before
 * summarising) replaced by `[REDACTED:<kind>]`. The in-memory entry stays
 * exact, so a restore within the process gives the secret back; after a
 * resume the ledger is read from disk and a restore gives back the
 * placeholder. A placed message that changed carries the digest of its
 * original, so restore still finds it in (and puts it back into) a list
 * whose live copy is exact.
 */
export function redactLedgerEntry(entry: LedgerEntry, redactor: SecretRedactor): LedgerEntry {
  const text = (t: string) => redactor.redactText(t).text;
  switch (entry.kind) {
    case "compaction":
      return {
        ...entry,
        focusTopic: entry.focusTopic === null ? null : text(entry.focusTopic),
        removed: entry.removed.map((p) => redactPlaced(p, text)),
        inserted: entry.inserted.map((p) => redactPlaced(p, text)),
      };
    case "restore":
      return entry;
    default:
      return { ...entry, text: text(entry.text) };
  }
}

/** A redactor over the core rules; `options` turns kinds off, adds rules or allows exact strings (as LCM's `redaction` setting). */
export function ledgerRedactor(options: SecretRuleOptions = {}): SecretRedactor {
  return createSecretRedactor(options);
}

function redactPlaced(placed: PlacedMessage, text: (t: string) => string): PlacedMessage {
  // Most messages hold no secret: plain data whose strings all come back as they are is written as it stands,
  // without the copy and the two serialisations that would only find it unchanged (100k on a first turn).
  if (redactsNothing(placed.message, text)) return placed;
  const message = redactMessage(placed.message, text);
  if (JSON.stringify(message) === JSON.stringify(placed.message)) return placed;
  return { index: placed.index, message, digest: placed.digest ?? messageDigest(placed.message) };
}

/** The message with its text content, text parts, tool-call arguments and name redacted; other fields as they are. */
export function redactMessage(message: Message, text: (t: string) => string): Message {
  const out = structuredClone(message);
  if (typeof out.content === "string") out.content = text(out.content);
  else if (Array.isArray(out.content)) {
    out.content = out.content.map((part) => ("text" in part && part.type === "text" && typeof part.text === "string" ? { ...part, text: text(part.text) } : part));
  }
  if (out.role === "assistant" && Array.isArray(out.tool_calls)) {
    out.tool_calls = out.tool_calls.map((call) => ({ ...call, function: { ...call.function, arguments: text(call.function.arguments) } }));
  }
  return out;
}

/**
 * Whether `redactMessage` would give back a message with the same JSON: every string it redacts comes back as it
 * is, and the message is plain data (which `structuredClone` copies to the same JSON). False also for any shape
 * it does not know, which then takes the full path (and its errors).
 */
function redactsNothing(message: Message, text: (t: string) => string): boolean {
  if (!isPlainData(message)) return false;
  const m = message as { role?: unknown; content?: unknown; tool_calls?: unknown };
  if (typeof m.content === "string") {
    if (text(m.content) !== m.content) return false;
  } else if (Array.isArray(m.content)) {
    for (const part of m.content as unknown[]) {
      if (part === null || typeof part !== "object") return false;
      const p = part as { type?: unknown; text?: unknown };
      if ("text" in p && p.type === "text" && typeof p.text === "string" && text(p.text) !== p.text) return false;
    }
  }
  if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls as unknown[]) {
      const args = (call as { function?: { arguments?: unknown } } | null)?.function?.arguments;
      if (typeof args !== "string" || text(args) !== args) return false;
    }
  }
  return true;
}

/** Objects and arrays of the plain kinds (no own `__proto__` key) holding strings, numbers, booleans, null or undefined. */
function isPlainData(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean") return true;
  if (type !== "object") return false;
  if (Array.isArray(value)) return Object.getPrototypeOf(value) === Array.prototype && value.every(isPlainData);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) {
    if (key === "__proto__" || !isPlainData((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}
