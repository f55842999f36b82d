import { acceptMessageTime, type Message } from "@context-engine/core";
import { encodeMessage, FLAG_CJK, FLAG_HAS_PARTS, FLAG_REDACTED, type EncodedMessage, type MessageRow } from "../codec.js";
import { IngestInputs, type IngestEncoder } from "../ingest-inputs.js";
import { ingestResult, planIngest, RECORDED_POSITIONS, runPlanSync, type IngestNeed, type IngestPlan, type StoredRef } from "../ingest-plan.js";
import type { FrontierAppend, FrontierItem, IngestOptions, IngestResult } from "../types.js";
import { CALL_ID_SEPARATOR, type ConversationRow } from "./rows.js";
import { putPayload, requireConversation, type SqliteContext } from "./context.js";
import { hydrate } from "./messages.js";
import { carriedBy, carries, importReport, newPendingImport, sourceInputs, type PendingImport } from "../import-plan.js";
import { abandonImport, insertPendingImport, readPendingImport, storeBacklog } from "./import.js";

/** In `index: "auto"` mode, an ingest appending more than this many messages defers its indexing. */
export const AUTO_DEFER_ABOVE = 500;

/** Ingest inside the caller's (immediate) transaction: plan (see ingest-plan.ts), answering its reads here, then write. */
export function ingestRows(ctx: SqliteContext, conversationId: number, messages: readonly Message[], options: IngestOptions): IngestResult {
  const conv = requireConversation(ctx, conversationId);
  const inputs = new IngestInputs(messages, options.isSynthetic, encoderOf(ctx));
  let pending = readPendingImport(ctx, conversationId);
  let abandoned = 0;
  // An import nobody can finish (no list at hand shows its history, no progress for IMPORT_LEASE_MS) is given up.
  const giveUpIfStuck = () => {
    if (!pending || carriedBy(inputs, pending, options.importSource, encoderOf(ctx))) return;
    abandoned = abandonImport(ctx, pending);
    if (abandoned > 0) pending = null;
  };
  const plan = runPlanSync(planIngest(inputs, options, conv.message_count, pending !== null), (need) => {
    if (need.kind !== "complete-import") return answer(ctx, conversationId, need);
    completeImport(ctx, pending!, inputs, options);
    // Finished, or left to the process at work on it (reconciled with what is stored meanwhile, the list's
    // messages before the tail held back), or given up first when nobody can finish it (then nothing is held).
    pending = readPendingImport(ctx, conversationId);
    giveUpIfStuck();
    return pending ? { tailSeq: pending.endSeq } : null;
  });
  const result = writePlan(ctx, conversationId, conv.message_count, plan, options, messages.length);
  giveUpIfStuck();
  return Object.assign(result, importReport(plan.deferred, pending, abandoned, inputs));
}

/**
 * The rest of a pending import, stored now (the list is about to be compared with the whole history): from
 * the list given when it carries the backlog, else from the caller's source. Neither: left as it is.
 */
function completeImport(ctx: SqliteContext, p: PendingImport, inputs: IngestInputs, options: IngestOptions): void {
  const never = () => false;
  if (carries(inputs, p)) return void storeBacklog(ctx, p, inputs, never, options.timestamps);
  const src = options.importSource;
  const other = src ? sourceInputs(src.messages, src.isSynthetic, encoderOf(ctx)) : null;
  if (other && carries(other, p)) storeBacklog(ctx, p, other, never, src!.timestamps);
}

function encoderOf(ctx: SqliteContext): IngestEncoder {
  return {
    encode: (message) => encodeMessage(message, ctx.redactor),
    memo: ctx.hashMemo,
  };
}

/** What the plan asks of the stored history, read inside the transaction. */
function answer(ctx: SqliteContext, conversationId: number, need: IngestNeed): unknown {
  if (need.kind === "keys") {
    const known = new Map<string, number | null>();
    for (const key of need.keys) {
      const row = ctx.s.ingestKey.get(conversationId, key) as { id: number | null } | undefined;
      if (row) known.set(key, row.id);
    }
    return known;
  }
  if (need.kind === "positions") return ctx.s.writerPositions.all(conversationId, need.limit);
  if (need.kind === "atSeq") return (ctx.s.hashAtSeq.get(conversationId, need.seq) as StoredRef | undefined) ?? null;
  if (need.kind === "hashes") {
    const out: StoredRef[] = [];
    for (const r of ctx.s.hashesInOrder.iterate(conversationId) as Iterable<StoredRef>) if (need.hashes.has(r.hash)) out.push(r);
    return out;
  }
  if (need.kind !== "loose") throw new Error(`ingest: unexpected need ${need.kind}`);
  const rows = ctx.s.rangeAsc.all(conversationId, need.afterSeq + 1, need.beforeSeq - 1, need.limit) as MessageRow[];
  return rows.map((row) => {
    const m = hydrate(ctx, row);
    return { id: m.id, seq: m.seq, hash: encodeMessage(m.message, ctx.redactor).looseHex };
  });
}

function writePlan(ctx: SqliteContext, conversationId: number, storedCount: number, plan: IngestPlan, options: IngestOptions, inputCount: number): IngestResult {
  const indexMode = options.index ?? "auto";
  const deferIndex = indexMode === "deferred" || (indexMode === "auto" && plan.append.length > AUTO_DEFER_ABOVE);
  if (deferIndex) ctx.backlog = true;
  const now = options.now ?? Date.now();
  const ctag = `c${conversationId}`;
  const newIds: number[] = [];
  if (plan.append.length > 0) assertNextSeq(ctx, conversationId, storedCount);
  // A deferred backlog takes the seqs before the tail (stored later by import slices).
  const reserved = plan.deferred?.reserved ?? 0;
  const firstSeq = storedCount + reserved;
  let seq = firstSeq;
  let addedTokens = 0;
  let addedBytes = 0;
  const tokenCounts: number[] = [];
  for (const { index, encoded } of plan.append) {
    const tokens = ctx.countTokens(encoded.message);
    const { id, textBytes } = insertMessage(ctx, conversationId, seq, encoded, tokens, acceptMessageTime(options.timestamps?.[index]) ?? now);
    if (!deferIndex) {
      ctx.s.insertFts.run(id, encoded.searchText, ctag);
      if (encoded.hasCjk) ctx.s.insertCjk.run(id, encoded.searchText);
    }
    newIds.push(id);
    tokenCounts.push(tokens);
    seq++;
    addedTokens += tokens;
    addedBytes += encoded.searchText === encoded.text ? textBytes : Buffer.byteLength(encoded.searchText);
  }
  const appended = newIds.length;
  // The deferred index's queue: every message stored from the first seq, in one statement rather than one per message.
  if (deferIndex && appended > 0) ctx.s.insertPendingFrom.run(conversationId, firstSeq);
  const toFrontier = options.appendToFrontier ?? true;
  let frontierAppend: FrontierAppend | undefined;
  if (appended > 0 && toFrontier) {
    // The new messages join the frontier in seq order, in one statement rather than one per message.
    const next = ((ctx.s.maxOrdinal.get(conversationId) as { m: number | null }).m ?? -1) + 1;
    ctx.s.appendNewToFrontier.run(next - storedCount, conversationId, storedCount);
    if (!plan.deferred) frontierAppend = appendedItems(requireConversation(ctx, conversationId), plan, newIds, tokenCounts, next);
  }
  recordKeys(ctx, conversationId, plan, newIds, now);
  if (plan.deferred && appended > 0) {
    const maxOrdinal = (ctx.s.maxOrdinal.get(conversationId) as { m: number | null }).m ?? 0;
    insertPendingImport(ctx, newPendingImport(conversationId, { storedCount, reserved, appended, maxOrdinal, tailFirstId: newIds[0]! }, plan.deferred));
  }
  if (appended > 0) {
    ctx.s.bumpConvAfterIngest.run(appended + reserved, addedTokens, addedBytes, Date.now(), toFrontier ? addedTokens : 0, toFrontier ? appended : 0, toFrontier ? 1 : 0, conversationId);
  }
  const result = ingestResult(conversationId, plan, newIds, storedCount + reserved, inputCount);
  return frontierAppend ? Object.assign(result, { frontierAppend }) : result;
}

/**
 * The frontier items just appended (ordinals from `firstOrdinal`, as `appendNewToFrontier` numbered them), with the
 * shapes the planner's read would give (`toShapedFrontierItem`), and the counters the conversation row held before.
 */
function appendedItems(conv: ConversationRow, plan: IngestPlan, newIds: readonly number[], tokens: readonly number[], firstOrdinal: number): FrontierAppend {
  const items: FrontierItem[] = plan.append.map(({ encoded: e }, j) => {
    // As the read joins the call ids and splits them again: one empty id reads back as none.
    const joined = e.toolCallIds.join(CALL_ID_SEPARATOR);
    const shape = { role: e.role, toolCallIds: joined ? joined.split(CALL_ID_SEPARATOR) : [], toolCallId: e.toolCallId };
    return { kind: "message", messageId: newIds[j]!, ordinal: firstOrdinal + j, tokens: tokens[j]!, shape };
  });
  return { before: { version: conv.frontier_version, tokens: conv.frontier_tokens, count: conv.frontier_count }, items };
}

/** The guard the UNIQUE (conversation_id, seq) index was (schema version 10): never a second message at a seq. */
function assertNextSeq(ctx: SqliteContext, conversationId: number, next: number): void {
  const last = (ctx.s.lastSeq.get(conversationId) as { s: number | null }).s;
  if (last !== null && last >= next) {
    throw new Error(`LCM store: conversation ${conversationId} holds a message at seq ${last} but counts ${next}; nothing was written`);
  }
}

/** Where the writer stands now, the turn key (with the last message it stored) and the message keys of what was appended. */
function recordKeys(ctx: SqliteContext, conversationId: number, plan: IngestPlan, newIds: readonly number[], now: number): void {
  if (plan.position && !plan.positionRecorded) {
    ctx.s.insertWriterPosition.run(conversationId, plan.position.index, plan.position.fingerprint);
    ctx.s.trimWriterPositions.run(conversationId, conversationId, RECORDED_POSITIONS);
  }
  if (plan.newTurnKey !== null) ctx.s.insertIngestKey.run(conversationId, plan.newTurnKey, newIds.at(-1) ?? null, now);
  if (plan.newMessageKeys.size === 0) return;
  plan.append.forEach(({ index }, j) => {
    const key = plan.newMessageKeys.get(index);
    if (key !== undefined) ctx.s.insertIngestKey.run(conversationId, key, newIds[j]!, now);
  });
}

/** One message row and its parts; bodies over the payload threshold go to the payload table. */
export function insertMessage(ctx: SqliteContext, conversationId: number, seq: number, e: EncodedMessage, tokens: number, createdAt: number): { id: number; textBytes: number } {
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
