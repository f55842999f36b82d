import { redactSecrets } from "@context-engine/core";
import { z } from "zod";
import { withWellFormedText } from "../store/codec.js";
import { checkDocumentRules } from "./rules.js";

/**
 * A conversation as a self-contained document, free of store ids: messages by
 * position, summaries by their index in `summaries` (children before parents),
 * leaf sources by message position. Exporting from one store and importing
 * into another (SQLite to PostgreSQL) gives back the same document.
 *
 * The schema holds every rule the stores enforce when they write (roles,
 * content shapes, tool pairing, summary lineage and depth) plus what an exact
 * round trip needs (integer timestamps in a sane range, well-formed Unicode
 * without NUL, the canonical summary order), so an import is refused before
 * its first write (see `rules.ts` for the rules across fields).
 */
export const EXPORT_FORMAT = "lcm-conversation";
export const EXPORT_VERSION = 1;

/** Epoch ms accepted as a timestamp: 1970-01-01 up to 2200-01-01 (a typo of 1000× is refused). */
export const MAX_TIMESTAMP_MS = Date.UTC(2200, 0, 1);
/** The largest message an import accepts, in UTF-16 code units of its JSON form (8 MiB). */
export const MAX_MESSAGE_CHARS = 8 * 1024 * 1024;
/** PostgreSQL `integer` columns (tokens, depth) hold at most this. */
const MAX_INT32 = 2_147_483_647;

/** Unpaired surrogates cannot be stored as UTF-8 (SQLite would turn them into U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Message text: well-formed UTF-16 (NUL is fine: PostgreSQL keeps the message as escaped json). */
const MessageText = z.string().refine((s) => !LONE_SURROGATE.test(s), "text without unpaired surrogates");
/** Summary and session text: also no NUL, which PostgreSQL text and jsonb columns cannot hold. */
const StoredText = z.string().refine((s) => !LONE_SURROGATE.test(s) && !s.includes("\u0000"), "text without NUL characters or unpaired surrogates");

/** Any JSON value whose strings (keys too) pass `text`. */
function jsonValue(text: z.ZodType<string>): z.ZodType<unknown> {
  const value: z.ZodType<unknown> = z.lazy(() => z.union([text, z.number(), z.boolean(), z.null(), z.array(value), z.record(text, value)]));
  return value;
}
const MessageJson = jsonValue(MessageText);
const MetaJson = jsonValue(StoredText);

const Timestamp = z.number().int("an integer (epoch milliseconds)").min(0).max(MAX_TIMESTAMP_MS, `at most ${MAX_TIMESTAMP_MS} (2200-01-01)`);

const TextPart = z.object({ type: z.literal("text"), text: MessageText }).catchall(MessageJson);
const OtherPart = z.object({ type: MessageText.refine((t) => t !== "text", "a part type") }).catchall(MessageJson);
const Content = z.union([MessageText, z.null(), z.array(z.union([TextPart, OtherPart]))]);

const ToolCall = z.object({
  id: MessageText.min(1),
  type: z.literal("function"),
  function: z.object({ name: MessageText, arguments: MessageText }).catchall(MessageJson),
}).catchall(MessageJson);

/**
 * One OpenAI message as the stores keep it: a known role, `content` present
 * (string, null or parts), tool calls only on assistant messages (at least one
 * when the field is there), `tool_call_id` on tool results and nowhere else.
 * Other fields are kept as they are (JSON values).
 */
export const ImportMessageSchema = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: Content,
    name: MessageText.optional(),
    tool_calls: z.array(ToolCall).min(1, "at least one tool call (omit the field otherwise)").optional(),
    tool_call_id: MessageText.min(1).optional(),
  })
  .catchall(MessageJson)
  .superRefine((m, ctx) => {
    if (m.tool_calls !== undefined && m.role !== "assistant") ctx.addIssue({ code: "custom", path: ["tool_calls"], message: "only assistant messages make tool calls" });
    if (m.role === "tool" && m.tool_call_id === undefined) ctx.addIssue({ code: "custom", path: ["tool_call_id"], message: "a tool result names the call it answers" });
    if (m.role !== "tool" && m.tool_call_id !== undefined) ctx.addIssue({ code: "custom", path: ["tool_call_id"], message: "only tool results carry tool_call_id" });
    if (JSON.stringify(m).length > MAX_MESSAGE_CHARS) ctx.addIssue({ code: "custom", path: [], message: `a message of at most ${MAX_MESSAGE_CHARS} characters` });
  });

/** A host session id: 1 to 1024 characters, no NUL. */
export const SessionIdSchema = StoredText.min(1).max(1024);

const FrontierRef = z.union([z.strictObject({ message: z.number().int().min(0) }), z.strictObject({ summary: z.number().int().min(0) })]);

const SummarySchema = z.strictObject({
  kind: z.enum(["leaf", "condensed"]),
  depth: z.number().int().min(0).max(MAX_INT32),
  content: StoredText.min(1),
  tokens: z.number().int().min(0).max(MAX_INT32),
  level: z.enum(["normal", "aggressive", "fallback"]),
  model: StoredText.nullable(),
  meta: z.record(StoredText, MetaJson).nullable(),
  createdAt: Timestamp,
  /** Leaf: positions of the messages it covers, ascending. */
  messages: z.array(z.number().int().min(0)).optional(),
  /** Condensed: indexes (in this array, earlier) of the summaries it covers, in conversation order. */
  children: z.array(z.number().int().min(0)).optional(),
});

export const ConversationExportSchema = z
  .strictObject({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(EXPORT_VERSION),
    sessionId: SessionIdSchema,
    messages: z.array(
      z.strictObject({
        /** The message as stored (already redacted), in OpenAI format. */
        message: ImportMessageSchema,
        createdAt: Timestamp,
        /**
         * Its tool calls or result do not pair as a provider expects (a call cut short, an id used again, a
         * result without its call): the store kept it as the host sent it. Only a marked message may.
         */
        unpaired: z.literal(true).optional(),
      }),
    ),
    summaries: z.array(SummarySchema),
    /** The active context, in order. */
    frontier: z.array(FrontierRef),
  })
  .superRefine(checkDocumentRules);

export type ConversationExport = z.infer<typeof ConversationExportSchema>;

/**
 * Unpaired surrogates in messages and summaries become U+FFFD, the rule the store applies when it writes a
 * message (`withWellFormedText`): a document another tool wrote imports as the store would have kept it. The
 * session id is an identity and is not rewritten (one with an unpaired surrogate is refused).
 */
function wellFormedDocument(raw: unknown): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const doc = raw as Record<string, unknown>;
  return { ...doc, messages: withWellFormedText(doc.messages), summaries: withWellFormedText(doc.summaries) };
}

/** Validate an export document, naming the field and the expectation on error (values quoted in it are redacted). */
export function parseConversationExport(raw: unknown, source = "export"): ConversationExport {
  const parsed = ConversationExportSchema.safeParse(wellFormedDocument(raw));
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${[source, ...i.path.map(String)].join(".")}: ${i.message}`)
    .join("; ");
  throw new Error(`invalid LCM conversation export: ${redactSecrets(detail)}`);
}
