import { rmSync, statSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../errors.js";
import type { TranscriptStore } from "./transcripts.js";

/**
 * `chat:` in config.yaml: how long saved chats are kept. Absent: every chat is
 * kept. Both bounds may be set; a chat past either is removed.
 */
export const ChatSectionSchema = z.strictObject({
  /** Remove chats not active for more than this many days (fractions allowed). */
  keep_days: z.number({ error: "expected a number of days greater than 0" }).positive({ error: "expected a number of days greater than 0" }).optional(),
  /** Keep at most this many chats, the most recently active. */
  max_chats: z.int({ error: "expected a whole number of chats, at least 1" }).positive({ error: "expected a whole number of chats, at least 1" }).optional(),
});
export type ChatRetention = z.infer<typeof ChatSectionSchema>;

const DAY_MS = 86_400_000;

/** The raw config.yaml value and where its keys are, as the loaded config carries them. */
export interface ConfigSource {
  value: unknown;
  positionOf(path: readonly PropertyKey[], atKey?: boolean): { line: number; column: number } | null;
}

/** The `chat` section of config.yaml, validated; a bad value is a ConfigError naming file, line, field and expectation. */
export function chatRetention(source: ConfigSource | null, file: string): ChatRetention {
  const raw = (source?.value as { chat?: unknown } | null | undefined)?.chat;
  if (raw === undefined || raw === null) return {};
  const parsed = ChatSectionSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const unknown = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
  const path = ["chat", ...issue.path.map(String), ...(unknown ? [unknown] : [])];
  const at = source?.positionOf(path, unknown !== undefined);
  const where = `${file}${at ? `:${at.line}:${at.column}` : ""}`;
  const message = unknown ? `unknown key (expected keep_days or max_chats)` : issue.message;
  throw new ConfigError(`${where}: ${path.join(".")}: ${message}`, { hints: ["chat.keep_days: days a chat is kept after its last use; chat.max_chats: how many chats are kept."] });
}

/**
 * Remove the saved chats past the bounds, each transcript with its ledger
 * file, never `keep` (the chat starting or being resumed). Age is the
 * transcript's last change (it is appended to as the chat goes on).
 */
export function pruneChats(store: TranscriptStore, retention: ChatRetention, keep: string, now = Date.now()): string[] {
  if (retention.keep_days === undefined && retention.max_chats === undefined) return [];
  const chats = store.ids().filter((id) => id !== keep).map((id) => ({ id, at: lastChange(store.fileOf(id)) }));
  // ids() is newest first; the one being kept counts toward max_chats.
  const room = retention.max_chats === undefined ? Number.POSITIVE_INFINITY : retention.max_chats - 1;
  const oldest = retention.keep_days === undefined ? Number.NEGATIVE_INFINITY : now - retention.keep_days * DAY_MS;
  const removed: string[] = [];
  chats.forEach((c, i) => {
    if (i < room && c.at >= oldest) return;
    rmSync(store.fileOf(c.id), { force: true });
    rmSync(store.ledgerFileOf(c.id), { force: true });
    removed.push(c.id);
  });
  return removed;
}

function lastChange(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
