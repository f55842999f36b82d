import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MessageSchema, type Message } from "@context-engine/core";
import { z } from "zod";
import { InputError } from "../errors.js";

/**
 * Chat transcripts, one JSON Lines file per session under
 * `<home>/chats/<id>.jsonl`: a header line, then every message as it was
 * said (the full conversation, not the engine's compacted view).
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
const MessageLineSchema = z.looseObject({ type: z.literal("message"), message: MessageSchema });

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
  messages: Message[];
  /** Lines that could not be read (always 0: a bad line is an error, never silently dropped). */
  skipped: number;
}

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
      .filter((name) => name.endsWith(".jsonl") && ID.test(name.slice(0, -6)))
      .map((name) => ({ id: name.slice(0, -6), at: statSync(join(this.dir, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at)
      .map((e) => e.id);
  }

  /** Every transcript, newest first. */
  list(): TranscriptSummary[] {
    if (!existsSync(this.dir)) return [];
    const out: TranscriptSummary[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".jsonl")) continue;
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
  lines.slice(1).forEach((line, i) => {
    const parsed = MessageLineSchema.safeParse(safeJson(line));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
      throw new TypeError(`${file}: line ${i + 2}: not a valid message line (${where}${issue?.message ?? "invalid"})`);
    }
    messages.push(parsed.data.message as Message);
  });
  return { header: { ...head.data, type: "session", cwd: head.data.cwd }, messages, skipped: 0 };
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
