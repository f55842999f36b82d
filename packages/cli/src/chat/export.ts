import { existsSync, readFileSync } from "node:fs";
import { closestName } from "@context-engine/core";
import { z } from "zod";
import { InputError, UsageError } from "../errors.js";
import { checkResumeId } from "./resume.js";
import { parseTranscript, type TranscriptStore } from "./transcripts.js";

/** What `chat export` writes: one JSON document, the transcript's lines and the ledger's entries as stored. */
export const CHAT_EXPORT_FORMAT = "context-engine.chat-export";
export const CHAT_EXPORT_VERSION = 1;

const JsonLine = z.looseObject({});
// The ledger as the host writes it (already redacted): every entry has these; the rest is kept as is.
const LedgerEntrySchema = z.looseObject({
  kind: z.enum(["compaction", "restore", "pin", "unpin"]),
  id: z.string().min(1),
  sessionId: z.string(),
  at: z.string(),
});

export const ChatExportSchema = z.strictObject({
  format: z.literal(CHAT_EXPORT_FORMAT),
  version: z.literal(CHAT_EXPORT_VERSION),
  id: z.string().min(1),
  exportedAt: z.string(),
  transcript: z.array(JsonLine).min(1),
  ledger: z.array(LedgerEntrySchema),
});
export type ChatExport = z.infer<typeof ChatExportSchema>;

/**
 * The export of one chat: its transcript (validated as `--resume` reads it: a
 * damaged one is an error, never half-exported) and its ledger file's entries.
 */
export function exportChat(store: TranscriptStore, id: string, now = new Date()): ChatExport {
  const file = store.fileOf(id);
  const text = readFileSync(file, "utf8");
  let headerId: string;
  try {
    headerId = parseTranscript(text, file).header.id;
  } catch (error) {
    throw new InputError(`chat export: chat ${id} cannot be exported: ${(error as Error).message}`);
  }
  if (headerId !== id) throw new InputError(`chat export: ${file} says it is chat ${JSON.stringify(headerId)}, not ${JSON.stringify(id)}`);
  const transcript = jsonLines(text);
  const ledgerFile = store.ledgerFileOf(id);
  const ledger = existsSync(ledgerFile) ? readLedger(ledgerFile) : [];
  const doc = { format: CHAT_EXPORT_FORMAT, version: CHAT_EXPORT_VERSION, id, exportedAt: now.toISOString(), transcript, ledger } as const;
  // Validated on the way out: what we write is what an import can read back.
  const checked = ChatExportSchema.safeParse(doc);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new InputError(`chat export: chat ${id}: ${issue?.path.join(".") || "document"}: ${issue?.message ?? "invalid"}`);
  }
  return checked.data;
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

function readLedger(file: string): z.infer<typeof LedgerEntrySchema>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, i) => {
      if (!line.trim()) return [];
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new InputError(`chat export: ${file}: line ${i + 1}: not JSON`);
      }
      const parsed = LedgerEntrySchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InputError(`chat export: ${file}: line ${i + 1}: not a ledger entry (${issue?.path.join(".") || "entry"}: expected ${issue?.message ?? "a valid entry"})`);
      }
      return [parsed.data];
    });
}

/** The chat an export names: an exact id or a unique prefix; else an error naming it, with the closest id. */
export function findChatId(store: TranscriptStore, id: string): string {
  checkResumeId(id);
  const ids = store.ids();
  const matches = ids.includes(id) ? [id] : ids.filter((c) => c.startsWith(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UsageError(`chat export: ${JSON.stringify(id)} matches ${matches.length} chats`, {
      hints: [`Candidates: ${matches.slice(0, 10).join(", ")}${matches.length > 10 ? ", …" : ""}`, "Give more of the id."],
    });
  }
  const guess = closestName(id, ids);
  throw new InputError(`chat export: no saved chat ${JSON.stringify(id)} in ${store.dir}`, {
    hints: [guess ? `Did you mean '${guess}'?` : "Run 'context-engine chat --list' to see the saved chats."],
  });
}
