import type { Message } from "@context-engine/core";
import { ScreenThread } from "../../redact/screen-thread.js";
import { encodeMessage, FLAG_CJK, FLAG_HAS_PARTS, FLAG_REDACTED, type EncodedMessage } from "../codec.js";
import { IngestInputs, ingestResult, planIngest, type IngestEncoder, type IngestPlan, type StoredRef, type StoredView } from "../ingest-plan.js";
import { ScreenBatch } from "../screen-batch.js";
import type { IngestOptions, IngestResult } from "../types.js";
import { putPayload, requireConversation, type SqliteContext } from "./context.js";
import { StoredHashes } from "./stored-hashes.js";

/** In `index: "auto"` mode, an ingest appending more than this many messages defers its indexing. */
export const AUTO_DEFER_ABOVE = 500;
/**
 * How many of the last inputs of one ingest keep their identity hash in the object cache.
 * Alignment only reads the end of a transcript (up to 256 mapped ids plus the anchor run), and a cache
 * entry per message of a bulk import is a live WeakMap entry the garbage collector keeps revisiting.
 */
const HASH_CACHE_TAIL = 512;
/** An ingest appending at least this many messages runs the redaction pre-screen ahead, on a second thread. */
const SCREEN_THREAD_MIN = 256;
/** Stored hashes read per query while alignment walks back. */
const TAIL_CHUNK = 320;

/** Idempotent ingest inside the caller's (immediate) transaction: plan (see ingest-plan.ts), then write. */
export function ingestRows(ctx: SqliteContext, conversationId: number, messages: readonly Message[], options: IngestOptions): IngestResult {
  const conv = requireConversation(ctx, conversationId);
  const inputs = new IngestInputs(messages, options.isSynthetic, encoderOf(ctx, messages));
  const plan = planIngest(inputs, storedView(ctx, conversationId, conv.message_count), options.mode);
  // SQLite answers every lookup inside the transaction, so the plan never asks for more.
  if ("needKnownHashes" in plan) throw new Error("ingest: alignment asked for hashes the store did not offer");
  return writePlan(ctx, conversationId, conv.message_count, plan, options, messages.length);
}

function encoderOf(ctx: SqliteContext, messages: readonly Message[]): IngestEncoder {
  const cacheFrom = messages.length - HASH_CACHE_TAIL;
  return {
    encode(message, index, screened) {
      const e = encodeMessage(message, ctx.redactor, screened);
      if (index >= cacheFrom) {
        const src = message as unknown as Record<string, unknown>;
        ctx.hashCache.set(src, { content: src.content, calls: src.tool_calls, hash: e.hashHex });
      }
      return e;
    },
    cachedHash(message) {
      const m = message as unknown as Record<string, unknown>;
      const hit = ctx.hashCache.get(m);
      return hit && hit.content === m.content && hit.calls === m.tool_calls ? hit.hash : undefined;
    },
    screenAhead(indexes) {
      if (!ctx.redactor.screen || indexes.length < SCREEN_THREAD_MIN) return null;
      if (ctx.screenThread === undefined) ctx.screenThread = ScreenThread.start(ctx.redactor.screen);
      if (!ctx.screenThread || ctx.screenThread.broken) return null;
      return new ScreenBatch(ctx.screenThread, messages, indexes);
    },
  };
}

/** The stored tail read lazily from the hash index, in chunks; older hashes read once, only for the fallback. */
function storedView(ctx: SqliteContext, conversationId: number, count: number): StoredView {
  const tail: StoredRef[] = [];
  let known: StoredHashes | null = null;
  return {
    count,
    tail(k) {
      while (tail.length <= k) {
        const fromSeq = count - 1 - tail.length;
        if (fromSeq < 0) return null;
        const list = (ctx.s.tailHashes.get(conversationId, fromSeq, TAIL_CHUNK) as { list: string | null }).list;
        if (!list) return null;
        const parts = list.split(" ");
        for (let j = 0; j + 1 < parts.length; j += 2) tail.push({ id: Number(parts[j]), hash: parts[j + 1]! });
      }
      return tail[k] ?? null;
    },
    knownId(hash) {
      known ??= new StoredHashes(ctx.s.hashesNewestFirst, conversationId, tail);
      return known.idOf(hash);
    },
  };
}

function writePlan(ctx: SqliteContext, conversationId: number, storedCount: number, plan: IngestPlan, options: IngestOptions, n: number): IngestResult {
  const indexMode = options.index ?? "auto";
  const deferIndex = indexMode === "deferred" || (indexMode === "auto" && n - plan.start > AUTO_DEFER_ABOVE);
  if (deferIndex) ctx.backlog = true;
  const now = options.now ?? Date.now();
  const ctag = `c${conversationId}`;
  const newIds: number[] = [];
  let seq = storedCount;
  let addedTokens = 0;
  let addedBytes = 0;
  for (const { index, encoded } of plan.append) {
    const tokens = ctx.countTokens(encoded.message);
    const { id, textBytes } = insertMessage(ctx, conversationId, seq, encoded, tokens, options.timestamps?.[index] ?? now);
    if (deferIndex) ctx.s.insertPending.run(id);
    else {
      ctx.s.insertFts.run(id, encoded.searchText, ctag);
      if (encoded.hasCjk) ctx.s.insertCjk.run(id, encoded.searchText);
    }
    newIds.push(id);
    seq++;
    addedTokens += tokens;
    addedBytes += encoded.searchText === encoded.text ? textBytes : Buffer.byteLength(encoded.searchText);
  }
  const appended = newIds.length;
  const toFrontier = options.appendToFrontier ?? true;
  if (appended > 0 && toFrontier) {
    // The new messages join the frontier in seq order, in one statement rather than one per message.
    const next = ((ctx.s.maxOrdinal.get(conversationId) as { m: number | null }).m ?? -1) + 1;
    ctx.s.appendNewToFrontier.run(next - storedCount, conversationId, storedCount);
  }
  if (appended > 0) {
    ctx.s.bumpConvAfterIngest.run(appended, addedTokens, addedBytes, Date.now(), toFrontier ? addedTokens : 0, toFrontier ? appended : 0, toFrontier ? 1 : 0, conversationId);
  }
  return ingestResult(conversationId, plan, newIds, storedCount);
}

/** One message row and its parts; bodies over the payload threshold go to the payload table. */
function insertMessage(ctx: SqliteContext, conversationId: number, seq: number, e: EncodedMessage, tokens: number, createdAt: number): { id: number; textBytes: number } {
  let text: string | null = e.text;
  let payload: string | null = null;
  const textBytes = Buffer.byteLength(e.text);
  if (textBytes > ctx.payloadThreshold) {
    payload = putPayload(ctx, e.text, "text/plain");
    text = null;
  }
  const flags = (e.parts.length ? FLAG_HAS_PARTS : 0) | (e.redacted ? FLAG_REDACTED : 0) | (e.hasCjk ? FLAG_CJK : 0);
  const id = Number(
    ctx.s.insertMessage.run(conversationId, seq, e.role, e.shape, text, payload, e.name, e.toolCallId, e.extra, tokens, createdAt, e.hash, flags)
      .lastInsertRowid,
  );
  for (const p of e.parts) {
    let body = p.body;
    let partPayload: string | null = null;
    if (body !== null && body.length > ctx.payloadThreshold / 3 && Buffer.byteLength(body) > ctx.payloadThreshold) {
      partPayload = putPayload(ctx, body, "application/json");
      body = null;
    }
    ctx.s.insertPart.run(id, p.kind, p.ordinal, p.callId, p.name, body, partPayload, p.span, p.extra);
  }
  return { id, textBytes };
}
