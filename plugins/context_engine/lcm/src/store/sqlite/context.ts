import type { HashMemo } from "../hash-memo.js";
import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import type { Message } from "@context-engine/core";
import type { Redactor } from "../../redact/types.js";
import type { Statements } from "./prepare.js";
import type { ConversationRow } from "./rows.js";

/** What the SQLite store's modules share: the handle, its statements, and per-handle state. */
export interface SqliteContext {
  readonly db: Database.Database;
  readonly s: Statements;
  readonly redactor: Redactor;
  readonly countTokens: (m: Message) => number;
  readonly payloadThreshold: number;
  /** Whether this handle queued messages for indexing that may still be waiting. */
  backlog: boolean;
  /** Identity hashes of the messages writer positions were fingerprinted on (see hash-memo.ts). */
  readonly hashMemo: HashMemo;
}

export function requireConversation(ctx: SqliteContext, id: number): ConversationRow {
  const r = ctx.s.convById.get(id) as ConversationRow | undefined;
  if (!r) throw new Error(`unknown conversation id ${id}`);
  return r;
}

/** Store bytes once (content-addressed); returns the sha256 hex. */
export function putPayload(ctx: SqliteContext, data: string | Buffer, mime: string | null): string {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const hash = createHash("sha256").update(buf).digest("hex");
  ctx.s.insertPayload.run(hash, buf.length, mime, typeof data === "string" ? 1 : 0, typeof data === "string" ? data : buf, Date.now());
  return hash;
}

export function payloadText(ctx: SqliteContext, hash: string): string {
  const r = ctx.s.payloadText.get(hash) as { t: string } | undefined;
  return r?.t ?? "";
}
