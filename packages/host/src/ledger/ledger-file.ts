import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { MessageSchema } from "@context-engine/core";
import { z } from "zod";
import type { LedgerEntry } from "./types.js";

const Placed = z.object({ index: z.number().int().nonnegative(), message: MessageSchema, digest: z.string().optional() });
const Cache = z.object({ bytesBefore: z.number(), bytesAfter: z.number(), identicalPrefixBytes: z.number() });
const Common = { id: z.string().min(1), sessionId: z.string(), at: z.string() };
const EntrySchema = z.discriminatedUnion("kind", [
  z.looseObject({
    kind: z.literal("compaction"),
    ...Common,
    engine: z.string(),
    trigger: z.string(),
    focusTopic: z.string().nullable(),
    durationMs: z.number(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    messagesBefore: z.number().int(),
    messagesAfter: z.number().int(),
    removed: z.array(Placed),
    inserted: z.array(Placed),
    before: z.array(z.string()),
    after: z.array(z.string()),
    cache: Cache,
  }),
  z.looseObject({
    kind: z.literal("restore"),
    ...Common,
    compactions: z.array(z.string()),
    messagesBack: z.number().int(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    messagesBefore: z.number().int(),
    messagesAfter: z.number().int(),
    cache: Cache,
  }),
  z.looseObject({ kind: z.enum(["pin", "unpin"]), ...Common, pinId: z.string(), text: z.string(), blockTokens: z.number() }),
]);

/**
 * The ledger as a JSON Lines file, one entry a line, appended as entries are
 * made (mode 0600: it holds what was said, like the transcript beside it).
 */
export class LedgerFile {
  constructor(readonly file: string) {}

  append(entry: LedgerEntry): void {
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }

  /** Every entry; a line that is not a ledger entry is an error naming the file, line and field. */
  load(): LedgerEntry[] {
    if (!existsSync(this.file)) return [];
    const out: LedgerEntry[] = [];
    readFileSync(this.file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (!line.trim()) return;
        let json: unknown;
        try {
          json = JSON.parse(line);
        } catch {
          throw new TypeError(`${this.file}: line ${i + 1}: not JSON`);
        }
        const parsed = EntrySchema.safeParse(json);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new TypeError(`${this.file}: line ${i + 1}: not a ledger entry (${issue?.path.join(".") || "entry"}: ${issue?.message ?? "invalid"})`);
        }
        out.push(parsed.data as LedgerEntry);
      });
    return out;
  }
}
