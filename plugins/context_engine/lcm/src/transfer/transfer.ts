import type { Message } from "@context-engine/core";
import type { FrontierItemKey, LcmStoreDriver } from "../store/types.js";
import { EXPORT_FORMAT, EXPORT_VERSION, parseConversationExport, type ConversationExport } from "./format.js";

/** One conversation of `store` as a store-independent document; null when the session is unknown. */
export async function exportConversation(store: LcmStoreDriver, sessionId: string): Promise<ConversationExport | null> {
  const conv = await store.findConversation(sessionId);
  if (!conv) return null;
  const stored = await store.getMessages(conv.id);
  const position = new Map(stored.map((m, i) => [m.id, i]));
  // Children before parents: by depth, then by span (condensed nodes only cover shallower ones).
  const records = [...(await store.listSummaries(conv.id))].sort((a, b) => a.depth - b.depth || a.firstSeq - b.firstSeq || a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const index = new Map(records.map((s, i) => [s.id, i]));
  const summaries: ConversationExport["summaries"] = [];
  for (const s of records) {
    const lineage = await store.lineage(s.id);
    summaries.push({
      kind: s.kind,
      depth: s.depth,
      content: s.content,
      tokens: s.tokens,
      level: s.level,
      model: s.model,
      meta: s.meta,
      createdAt: s.createdAt,
      ...(s.kind === "leaf" ? { messages: lineage.messageIds.map((id) => position.get(id)!) } : { children: lineage.childSummaryIds.map((id) => index.get(id)!) }),
    });
  }
  const frontier = (await store.getFrontier(conv.id)).items.map((it) =>
    it.kind === "message" ? { message: position.get(it.messageId)! } : { summary: index.get(it.summaryId)! },
  );
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    sessionId,
    messages: stored.map((m) => ({ message: m.message as unknown as Record<string, unknown>, createdAt: m.createdAt })),
    summaries,
    frontier,
  };
}

/**
 * Import a conversation into `store` under its session id (or `as`). Refuses a
 * session that already holds messages, so an import never mixes histories.
 */
export async function importConversation(store: LcmStoreDriver, raw: unknown, options: { as?: string } = {}): Promise<{ conversationId: number; messages: number; summaries: number }> {
  const doc = parseConversationExport(raw);
  const sessionId = options.as ?? doc.sessionId;
  const conv = await store.conversation(sessionId);
  if (conv.messageCount > 0) throw new Error(`lcm import: session "${sessionId}" already holds ${conv.messageCount} messages; import under another id (as)`);
  const messages = doc.messages.map((m) => m.message as unknown as Message);
  const r = await store.ingest(conv.id, messages, { mode: "append", appendToFrontier: false, timestamps: doc.messages.map((m) => m.createdAt), index: "now" });
  if (r.appended !== messages.length) throw new Error(`lcm import: ${messages.length - r.appended} messages could not be stored (${JSON.stringify(r.rejected.slice(0, 3))})`);
  const messageIds = r.ids as number[];
  const summaryIds: string[] = [];
  for (const [k, s] of doc.summaries.entries()) {
    const sources = s.kind === "leaf" ? { sourceMessageIds: (s.messages ?? []).map((p) => at(messageIds, p, `summaries.${k}.messages`)) } : { childSummaryIds: (s.children ?? []).map((c) => at(summaryIds.slice(0, k), c, `summaries.${k}.children`)) };
    const res = await store.commitSummary({ conversationId: conv.id, kind: s.kind, depth: s.depth, content: s.content, tokens: s.tokens, level: s.level, model: s.model, ...(s.meta ? { meta: s.meta } : {}), createdAt: s.createdAt, ...sources });
    if (!res.ok) throw new Error(`lcm import: summary ${k}: ${res.reason} (${res.detail})`);
    summaryIds.push(res.summary.id);
  }
  const frontier: FrontierItemKey[] = doc.frontier.map((f, k) =>
    "message" in f ? { kind: "message", messageId: at(messageIds, f.message, `frontier.${k}`) } : { kind: "summary", summaryId: at(summaryIds, f.summary, `frontier.${k}`) },
  );
  await store.setFrontier(conv.id, frontier);
  return { conversationId: conv.id, messages: messageIds.length, summaries: summaryIds.length };
}

function at<T>(list: readonly T[], index: number, field: string): T {
  const v = list[index];
  if (v === undefined) throw new Error(`lcm import: ${field} refers to ${index}, which does not exist (or comes later)`);
  return v;
}

