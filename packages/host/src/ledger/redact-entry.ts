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
