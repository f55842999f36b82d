import { z } from "zod";

/**
 * A conversation as a self-contained document, free of store ids: messages by
 * position, summaries by their index in `summaries` (children before parents),
 * leaf sources by message position. Exporting from one store and importing
 * into another (SQLite to PostgreSQL) gives back the same document.
 */
export const EXPORT_FORMAT = "lcm-conversation";
export const EXPORT_VERSION = 1;

const FrontierRef = z.union([z.strictObject({ message: z.number().int().min(0) }), z.strictObject({ summary: z.number().int().min(0) })]);

export const ConversationExportSchema = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  sessionId: z.string().min(1),
  messages: z.array(
    z.strictObject({
      /** The message as stored (already redacted), in OpenAI format. */
      message: z.record(z.string(), z.unknown()),
      createdAt: z.number(),
    }),
  ),
  summaries: z.array(
    z.strictObject({
      kind: z.enum(["leaf", "condensed"]),
      depth: z.number().int().min(0),
      content: z.string().min(1),
      tokens: z.number().int().min(0),
      level: z.enum(["normal", "aggressive", "fallback"]),
      model: z.string().nullable(),
      meta: z.record(z.string(), z.unknown()).nullable(),
      createdAt: z.number(),
      /** Leaf: positions of the messages it covers. */
      messages: z.array(z.number().int().min(0)).optional(),
      /** Condensed: indexes (in this array, earlier) of the summaries it covers. */
      children: z.array(z.number().int().min(0)).optional(),
    }),
  ),
  /** The active context, in order. */
  frontier: z.array(FrontierRef),
});

export type ConversationExport = z.infer<typeof ConversationExportSchema>;

/** Validate an export document, naming the field and the expectation on error. */
export function parseConversationExport(raw: unknown, source = "export"): ConversationExport {
  const parsed = ConversationExportSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.slice(0, 5).map((i) => `${source}.${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  throw new Error(`invalid LCM conversation export: ${detail}`);
}
