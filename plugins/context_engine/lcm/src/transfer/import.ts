import type { Message } from "@context-engine/core";
import type { CommitSummaryResult, ConversationRecord, FrontierItemKey, IngestResult, LcmStore, LcmStoreDriver, NewSummary } from "../store/types.js";
import { parseConversationExport, SessionIdSchema, type ConversationExport } from "./format.js";

export interface ImportReport {
  conversationId: number;
  messages: number;
  summaries: number;
}

/**
 * Import a conversation into `store` under its session id (or `as`).
 *
 * The whole document is validated first (`parseConversationExport`: every
 * rule the stores enforce when they write), so a refused document writes
 * nothing. The target must be fresh: no messages and a frontier never set.
 * The import claims it by setting its (empty) frontier with a compare-and-swap
 * on version 0, so of two imports of one conversation at once the second is
 * refused before it writes a row, on every store. Then the writes:
 * - SQLite: everything in one transaction (a failure rolls it all back);
 * - other drivers (PostgreSQL): call by call; should a write fail after the
 *   claim, the conversation is hard-deleted again, so nothing is left behind.
 */
export async function importConversation(store: LcmStoreDriver, raw: unknown, options: { as?: string } = {}): Promise<ImportReport> {
  const doc = parseConversationExport(raw);
  const sessionId = options.as ?? doc.sessionId;
  if (options.as !== undefined && !SessionIdSchema.safeParse(sessionId).success) throw new Error("lcm import: as: a session id of 1 to 1024 characters without NUL");
  const existing = await store.findConversation(sessionId);
  if (existing) refuseUnlessFresh(existing, sessionId);
  if (!isSqliteStore(store)) return importAsync(store, doc, sessionId);
  try {
    return store.transaction(() => importSync(store, doc, sessionId));
  } catch (error) {
    // Another connection writing this file at the same time: the transaction rolled back.
    if (/^SQLITE_BUSY/.test(String((error as { code?: unknown }).code))) throw claimFailed(sessionId);
    throw error;
  }
}

function refuseUnlessFresh(conv: ConversationRecord, sessionId: string): void {
  if (conv.messageCount > 0) throw new Error(`lcm import: session "${sessionId}" already holds ${conv.messageCount} messages; import under another id (as)`);
  if (conv.frontierVersion !== 0) throw new Error(`lcm import: session "${sessionId}" is in use (another import or the engine changed it); import under another id (as)`);
}

function isSqliteStore(store: LcmStoreDriver): store is LcmStoreDriver & LcmStore {
  return typeof (store as Partial<LcmStore>).transaction === "function";
}

function claimFailed(sessionId: string): Error {
  return new Error(`lcm import: session "${sessionId}" is being imported or written by another writer at the same time; nothing was written`);
}

const messagesOf = (doc: ConversationExport) => doc.messages.map((m) => m.message as unknown as Message);
const ingestOptions = (doc: ConversationExport) => ({ mode: "append" as const, appendToFrontier: false, timestamps: doc.messages.map((m) => m.createdAt), index: "now" as const });

function importSync(store: LcmStore, doc: ConversationExport, sessionId: string): ImportReport {
  const conv = store.conversation(sessionId);
  refuseUnlessFresh(conv, sessionId);
  if (!store.setFrontier(conv.id, [], { expectedVersion: 0 }).ok) throw claimFailed(sessionId);
  const messageIds = storedIds(store.ingest(conv.id, messagesOf(doc), ingestOptions(doc)), doc);
  const summaryIds: string[] = [];
  for (const [k, s] of doc.summaries.entries()) summaryIds.push(committedId(store.commitSummary(newSummary(conv.id, s, messageIds, summaryIds)), k));
  store.setFrontier(conv.id, frontierKeys(doc, messageIds, summaryIds));
  return { conversationId: conv.id, messages: messageIds.length, summaries: summaryIds.length };
}

async function importAsync(store: LcmStoreDriver, doc: ConversationExport, sessionId: string): Promise<ImportReport> {
  const conv = await store.conversation(sessionId);
  refuseUnlessFresh(conv, sessionId);
  if (!(await store.setFrontier(conv.id, [], { expectedVersion: 0 })).ok) throw claimFailed(sessionId);
  try {
    const messageIds = storedIds(await store.ingest(conv.id, messagesOf(doc), ingestOptions(doc)), doc);
    const summaryIds: string[] = [];
    for (const [k, s] of doc.summaries.entries()) summaryIds.push(committedId(await store.commitSummary(newSummary(conv.id, s, messageIds, summaryIds)), k));
    await store.setFrontier(conv.id, frontierKeys(doc, messageIds, summaryIds));
    return { conversationId: conv.id, messages: messageIds.length, summaries: summaryIds.length };
  } catch (error) {
    // The claim made this conversation ours: take back everything written since.
    await Promise.resolve(store.deleteConversation(conv.id)).catch(() => {});
    throw error;
  }
}

function storedIds(r: IngestResult, doc: ConversationExport): number[] {
  if (r.appended !== doc.messages.length || r.firstSeq !== (doc.messages.length ? 0 : null)) {
    throw new Error(`lcm import: ${doc.messages.length - r.appended} of ${doc.messages.length} messages could not be stored (${JSON.stringify(r.rejected.slice(0, 3))})`);
  }
  return r.ids as number[];
}

function newSummary(conversationId: number, s: ConversationExport["summaries"][number], messageIds: number[], summaryIds: string[]): NewSummary {
  const sources = s.kind === "leaf" ? { sourceMessageIds: (s.messages ?? []).map((p) => messageIds[p]!) } : { childSummaryIds: (s.children ?? []).map((c) => summaryIds[c]!) };
  return { conversationId, kind: s.kind, depth: s.depth, content: s.content, tokens: s.tokens, level: s.level, model: s.model, ...(s.meta ? { meta: s.meta } : {}), createdAt: s.createdAt, ...sources };
}

function committedId(res: CommitSummaryResult, k: number): string {
  if (!res.ok) throw new Error(`lcm import: summaries.${k}: ${res.reason} (${res.detail})`);
  return res.summary.id;
}

function frontierKeys(doc: ConversationExport, messageIds: number[], summaryIds: string[]): FrontierItemKey[] {
  return doc.frontier.map((f) => ("message" in f ? { kind: "message", messageId: messageIds[f.message]! } : { kind: "summary", summaryId: summaryIds[f.summary]! }));
}
