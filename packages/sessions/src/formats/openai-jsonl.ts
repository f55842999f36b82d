import { z } from "zod";
import { MessageSchema, type Message, type Usage } from "@context-engine/core";
import { SessionFormatError } from "../errors.js";
import { sourceFor } from "../provenance.js";
import type { RecordedSession } from "../types.js";
import { usageFromProvider } from "../usage.js";
import { finishSession } from "./finish.js";

const SessionLineSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  session_id: z.union([z.string(), z.number()]).optional(),
  messages: z.array(z.unknown()),
  tools: z.array(z.looseObject({})).optional(),
  usage: z.array(z.unknown().nullable()).optional(),
});

function baseName(path: string): string {
  return path.replace(/^.*[\\/]/, "").replace(/\.(jsonl|ndjson|json)$/, "");
}

function parseMessages(path: string, where: string, list: unknown[]): Message[] {
  return list.map((m, i) => {
    const check = MessageSchema.safeParse(m);
    if (!check.success) throw SessionFormatError.fromZod(path, `OpenAI message (${where}[${i}])`, check.error);
    return m as Message;
  });
}

function sessionFrom(path: string, id: string, value: z.infer<typeof SessionLineSchema>, where: string, times?: Array<number | null>): RecordedSession {
  const messages = parseMessages(path, `${where}messages`, value.messages);
  const usage: Array<Usage | null> | undefined = value.usage?.map((u) => usageFromProvider(u));
  return finishSession({
    id,
    format: "openai-jsonl",
    source: sourceFor(path, "openai-jsonl"),
    messages,
    ...(value.tools ? { tools: value.tools } : {}),
    ...(usage ? { usage } : {}),
    ...(times ? { times } : {}),
  });
}

/**
 * OpenAI-format recordings:
 * - JSONL with one message per line → one session (id = file name);
 * - JSONL with one `{ id?, messages, tools?, usage? }` per line → one session per line
 *   (id = `id`, `session_id`, else `<file>#<line>`);
 * - a `.json` file holding a message list, one `{ messages }` object, or a list of them.
 * Messages are validated against core's schemas (errors give the line and field).
 */
export function fromOpenAIJsonl(raw: string | unknown, path: string): RecordedSession[] {
  if (typeof raw !== "string") return fromOpenAIValue(raw, path);
  const trimmed = raw.trim();
  if (!trimmed) return [];
  // A whole-file JSON document (a list, or one `{ messages }` object) rather than JSON lines.
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    let whole: unknown;
    try {
      whole = JSON.parse(trimmed);
    } catch {
      whole = undefined; // several lines: JSONL
    }
    if (Array.isArray(whole) || (whole && typeof whole === "object" && "messages" in whole)) return fromOpenAIValue(whole, path);
  }
  const lines = raw.split(/\r?\n/);
  const values: Array<{ line: number; value: unknown }> = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    try {
      values.push({ line: i + 1, value: JSON.parse(text) });
    } catch (error) {
      throw new SessionFormatError(path, `line ${i + 1}: not valid JSON (${(error as Error).message})`);
    }
  });
  if (values.length === 0) return [];
  const first = values[0]!.value as Record<string, unknown>;
  if (first && typeof first === "object" && first.type === "session") return [fromChatTranscript(values, path)];
  if (first && typeof first === "object" && "messages" in first) {
    return values.map(({ line, value }) => {
      const parsed = SessionLineSchema.safeParse(value);
      if (!parsed.success) throw SessionFormatError.fromZod(path, `OpenAI session line ${line}`, parsed.error);
      const id = parsed.data.id ?? parsed.data.session_id ?? `${baseName(path)}#${line}`;
      return sessionFrom(path, String(id), parsed.data, `line ${line} `);
    });
  }
  const messages = values.map(({ line, value }) => {
    const check = MessageSchema.safeParse(value);
    if (!check.success) throw SessionFormatError.fromZod(path, `OpenAI message on line ${line}`, check.error);
    return value as Message;
  });
  return [sessionFrom(path, baseName(path), { messages }, "")];
}

function fromOpenAIValue(value: unknown, path: string): RecordedSession[] {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => v && typeof v === "object" && "messages" in (v as object))) {
      return value.map((v, i) => {
        const parsed = SessionLineSchema.safeParse(v);
        if (!parsed.success) throw SessionFormatError.fromZod(path, `OpenAI session [${i}]`, parsed.error);
        const id = parsed.data.id ?? parsed.data.session_id ?? `${baseName(path)}#${i + 1}`;
        return sessionFrom(path, String(id), parsed.data, `[${i}].`);
      });
    }
    return [sessionFrom(path, baseName(path), { messages: value }, "")];
  }
  const parsed = SessionLineSchema.safeParse(value);
  if (!parsed.success) throw SessionFormatError.fromZod(path, "OpenAI session", parsed.error);
  const id = parsed.data.id ?? parsed.data.session_id ?? baseName(path);
  return [sessionFrom(path, String(id), parsed.data, "")];
}

/** The header line of a context-engine chat transcript (`<home>/chats/<id>.jsonl`). */
const ChatHeaderSchema = z.looseObject({ type: z.literal("session"), id: z.string().min(1), model: z.string().optional() });
const ChatLineSchema = z.looseObject({ type: z.literal("message"), at: z.string().optional(), message: z.unknown() });
/** Lines a chat transcript keeps besides the messages (its compaction ledger, the engine's list): not part of the conversation. */
const CHAT_BOOKKEEPING = new Set(["compaction", "context"]);

/**
 * A context-engine chat transcript: a `{"type":"session","id",…}` header, then one
 * `{"type":"message","at","message"}` line per message as it was said, and
 * `compaction` / `context` lines the chat keeps for itself (skipped here).
 */
function fromChatTranscript(values: Array<{ line: number; value: unknown }>, path: string): RecordedSession {
  const head = ChatHeaderSchema.safeParse(values[0]!.value);
  if (!head.success) throw SessionFormatError.fromZod(path, "chat transcript header (line 1)", head.error);
  const messages: Message[] = [];
  const times: Array<number | null> = [];
  for (const { line, value } of values.slice(1)) {
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type === "string" && CHAT_BOOKKEEPING.has(type)) continue;
    const entry = ChatLineSchema.safeParse(value);
    if (!entry.success) throw SessionFormatError.fromZod(path, `chat transcript line ${line}`, entry.error);
    const check = MessageSchema.safeParse(entry.data.message);
    if (!check.success) throw SessionFormatError.fromZod(path, `OpenAI message on line ${line}`, check.error);
    messages.push(entry.data.message as Message);
    const at = entry.data.at ? Date.parse(entry.data.at) : Number.NaN;
    times.push(Number.isFinite(at) ? at : null);
  }
  const session = sessionFrom(path, head.data.id, { messages }, "", times);
  return head.data.model ? { ...session, meta: { ...session.meta, model: head.data.model } } : session;
}
