import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MessageSchema, type Message } from "@context-engine/core";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { CompactionRecord } from "./compactions.js";
import { preview } from "./message-text.js";

/**
 * Chat transcripts, one JSON Lines file per session under
 * `<home>/chats/<id>.jsonl`: a header line, then every message as it was
 * said (the full conversation, not the engine's compacted view). Between
 * them, a `compaction` line for each committed compaction (the ledger
 * `/compactions` shows) and a `context` line with the engine's list when a
 * compaction or a trim changed it, so `--resume` continues from that list.
 */
export interface TranscriptHeader {
  type: "session";
  id: string;
  startedAt: string;
  model: string;
  engine: string;
  cwd: string;
}

const HeaderSchema = z.looseObject({
  type: z.literal("session"),
  id: z.string().min(1),
  startedAt: z.string(),
  model: z.string(),
  engine: z.string(),
  cwd: z.string().optional().default(""),
});
const MessageLineSchema = z.looseObject({ type: z.literal("message"), at: z.string().optional(), message: MessageSchema });
const CompactionLineSchema = z.looseObject({
  type: z.literal("compaction"),
  at: z.string(),
  number: z.number().int().positive(),
  trigger: z.string(),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  messagesBefore: z.number().int(),
  messagesAfter: z.number().int(),
  durationMs: z.number(),
  removed: z.array(z.object({ role: z.string(), content: z.string() })),
  added: z.array(MessageSchema),
  summaryIds: z.array(z.string()).optional().default([]),
  ledgerId: z.string().optional(),
});
const ContextLineSchema = z.looseObject({ type: z.literal("context"), messages: z.array(MessageSchema) });
const LineSchema = z.discriminatedUnion("type", [MessageLineSchema, CompactionLineSchema, ContextLineSchema]);
/** A removed message is kept in the ledger as a preview this long (the transcript has it whole). */
const REMOVED_PREVIEW = 300;

export interface TranscriptSummary {
  id: string;
  file: string;
  startedAt: string;
  updatedAt: Date;
  model: string;
  engine: string;
  messages: number;
  /** The first user line, for the list. */
  firstUser: string;
}

export interface LoadedTranscript {
  header: TranscriptHeader;
  /** Every message as it was said. */
  messages: Message[];
  /**
   * What the engine's context was when the chat stopped: the last recorded
   * `context` list and the messages said after it; null when no compaction
   * or trim ever changed the list (then it is `messages`).
   */
  context: Message[] | null;
  /** The compactions the chat went through, oldest first. */
  compactions: CompactionRecord[];
  /** Lines that could not be read (always 0: a bad line is an error, never silently dropped). */
  skipped: number;
  /**
   * When a message was said, from its transcript line (epoch ms), looked up by content: equal messages
   * take their times in the order they were said. Null when the transcript has none for it.
   */
  saidAt(message: Message): number | null;
}

/** The host's compaction ledger of a chat, kept beside its transcript (`<id>.ledger.jsonl`): not a chat. */
const LEDGER_SUFFIX = ".ledger.jsonl";

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Whether a value can be a chat id (what `fileOf` accepts): never a path. */
export function isChatId(value: string): boolean {
  return ID.test(value);
}

export class TranscriptStore {
  readonly dir: string;
  constructor(home: string) {
    this.dir = join(home, "chats");
  }

  fileOf(id: string): string {
    if (!ID.test(id)) throw new TypeError(`not a chat id: ${JSON.stringify(id)} (letters, digits, '.', '_' and '-')`);
    return join(this.dir, `${id}.jsonl`);
  }

  /** The host's compaction ledger of a chat, beside its transcript (the host writes it; see setUpChat's ledgerDir). */
  ledgerFileOf(id: string): string {
    return this.fileOf(id).slice(0, -".jsonl".length) + LEDGER_SUFFIX;
  }

  /** Start a transcript (or continue one: the header is written once). */
  open(header: Omit<TranscriptHeader, "type">): void {
    mkdirSync(this.dir, { recursive: true });
    const file = this.fileOf(header.id);
    if (!existsSync(file)) appendFileSync(file, `${JSON.stringify({ type: "session", ...header })}\n`, { mode: 0o600 });
  }

  append(id: string, messages: readonly Message[]): void {
    if (messages.length === 0) return;
    const lines = messages.map((message) => JSON.stringify({ type: "message", at: new Date().toISOString(), message }));
    appendFileSync(this.fileOf(id), `${lines.join("\n")}\n`);
  }

  /** One entry of the compaction ledger (what it removed as previews: the messages themselves are in the transcript). */
  appendCompaction(id: string, r: CompactionRecord): void {
    const removed = r.removed.map((m) => ({ role: m.role, content: preview(m, REMOVED_PREVIEW) }));
    const { number, trigger, tokensBefore, tokensAfter, messagesBefore, messagesAfter, durationMs, added, summaryIds, ledgerId } = r;
    const line = { type: "compaction", at: r.at.toISOString(), number, trigger, tokensBefore, tokensAfter, messagesBefore, messagesAfter, durationMs, removed, added, summaryIds, ...(ledgerId ? { ledgerId } : {}) };
    appendFileSync(this.fileOf(id), `${JSON.stringify(line)}\n`);
  }

  /** The engine's list as it is now (after a compaction or a trim): where a resume starts. */
  appendContext(id: string, messages: readonly Message[]): void {
    appendFileSync(this.fileOf(id), `${JSON.stringify({ type: "context", at: new Date().toISOString(), messages })}\n`);
  }

  /** A chat's transcript; an unreadable one, or one whose header names another chat, is an InputError. */
  load(id: string): LoadedTranscript | null {
    const file = this.fileOf(id);
    if (!existsSync(file)) return null;
    let loaded: LoadedTranscript;
    try {
      loaded = parseTranscript(readFileSync(file, "utf8"), file);
    } catch (error) {
      throw new InputError(`chat ${id} cannot be resumed: ${(error as Error).message}`, { hints: ["The transcript was edited or damaged; fix or remove that file, or start a new chat."] });
    }
    if (loaded.header.id !== id) {
      throw new InputError(`chat ${id} cannot be resumed: ${file} says it is chat ${JSON.stringify(loaded.header.id)}`, {
        hints: ["A transcript's file name and its header id must agree; rename the file back or fix the header."],
      });
    }
    return loaded;
  }

  /** Ids of every transcript file (from the file names), newest first. */
  ids(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith(".jsonl") && !name.endsWith(LEDGER_SUFFIX) && ID.test(name.slice(0, -6)))
      .map((name) => ({ id: name.slice(0, -6), at: statSync(join(this.dir, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at)
      .map((e) => e.id);
  }

  /** Every transcript, newest first. */
  list(): TranscriptSummary[] {
    if (!existsSync(this.dir)) return [];
    const out: TranscriptSummary[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".jsonl") || name.endsWith(LEDGER_SUFFIX)) continue;
      const file = join(this.dir, name);
      try {
        const loaded = parseTranscript(readFileSync(file, "utf8"), file);
        const first = loaded.messages.find((m) => m.role === "user");
        out.push({
          id: loaded.header.id,
          file,
          startedAt: loaded.header.startedAt,
          updatedAt: statSync(file).mtime,
          model: loaded.header.model,
          engine: loaded.header.engine,
          messages: loaded.messages.length,
          firstUser: first && typeof first.content === "string" ? first.content : "",
        });
      } catch {
        // An unreadable file is not a chat; leave it out of the list.
      }
    }
    return out.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
  }

  latest(): TranscriptSummary | null {
    return this.list()[0] ?? null;
  }
}

export function parseTranscript(text: string, file: string): LoadedTranscript {
  const lines = text.split("\n").filter((l) => l.trim());
  const head = HeaderSchema.safeParse(safeJson(lines[0] ?? ""));
  if (!head.success) throw new TypeError(`${file}: line 1: expected a chat transcript header ({"type":"session",…})`);
  const messages: Message[] = [];
  const compactions: CompactionRecord[] = [];
  const said = new SaidTimes();
  let context: Message[] | null = null;
  lines.slice(1).forEach((line, i) => {
    const parsed = LineSchema.safeParse(safeJson(line));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
      throw new TypeError(`${file}: line ${i + 2}: not a valid ${lineKind(line)} line (${where}${issue?.message ?? "invalid"})`);
    }
    const entry = parsed.data;
    if (entry.type === "message") {
      const at = entry.at === undefined ? Number.NaN : Date.parse(entry.at);
      if (Number.isFinite(at)) said.add(entry.message, at);
      messages.push(entry.message as Message);
      context?.push(entry.message as Message);
    } else if (entry.type === "context") context = (entry.messages as Message[]).slice();
    else compactions.push(ledgerRecord(entry));
  });
  return { header: { ...head.data, type: "session", cwd: head.data.cwd }, messages, context, compactions, skipped: 0, saidAt: (m) => said.take(m) };
}

/** Times by message content, each handed out once in the order it was recorded (a resumed history is stamped in order). */
class SaidTimes {
  readonly #byContent = new Map<string, number[]>();

  add(message: unknown, at: number): void {
    const key = JSON.stringify(message);
    const times = this.#byContent.get(key);
    if (times) times.push(at);
    else this.#byContent.set(key, [at]);
  }

  take(message: Message): number | null {
    const times = this.#byContent.get(JSON.stringify(message));
    return times?.shift() ?? null;
  }
}

function ledgerRecord(e: z.infer<typeof CompactionLineSchema>): CompactionRecord {
  const { number, tokensBefore, tokensAfter, messagesBefore, messagesAfter, durationMs, summaryIds } = e;
  return {
    number,
    trigger: e.trigger as CompactionRecord["trigger"],
    at: new Date(e.at),
    tokensBefore,
    tokensAfter,
    messagesBefore,
    messagesAfter,
    durationMs,
    // Previews: enough for /compactions, never sent to a model.
    removed: e.removed as Message[],
    added: e.added as Message[],
    summaryIds,
    ...(e.ledgerId ? { ledgerId: e.ledgerId } : {}),
    restored: true,
  };
}

function lineKind(line: string): string {
  const type = (safeJson(line) as { type?: unknown } | null)?.type;
  return type === "compaction" || type === "context" ? type : "message";
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
