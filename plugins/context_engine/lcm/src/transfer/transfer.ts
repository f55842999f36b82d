import type { LcmStoreDriver, SummaryRecord } from "../store/types.js";
import { EXPORT_FORMAT, EXPORT_VERSION, type ConversationExport } from "./format.js";
import { compareSummaries, pairingIssues } from "./rules.js";

type ExportedSummary = ConversationExport["summaries"][number];

/** One conversation of `store` as a store-independent document; null when the session is unknown. */
export async function exportConversation(store: LcmStoreDriver, sessionId: string): Promise<ConversationExport | null> {
  const conv = await store.findConversation(sessionId);
  if (!conv) return null;
  const stored = await store.getMessages(conv.id);
  const position = new Map(stored.map((m, i) => [m.id, i]));
  const records = await store.listSummaries(conv.id);
  const lineages = new Map<string, Awaited<ReturnType<LcmStoreDriver["lineage"]>>>();
  for (const s of records) lineages.set(s.id, await store.lineage(s.id));

  // Export order, independent of store ids: depth by depth (children before parents), each depth sorted
  // by span, time, content and sources (see rules.ts), so every store writes the same document.
  const index = new Map<string, number>();
  const summaries: ExportedSummary[] = [];
  const depths = [...new Set(records.map((s) => s.depth))].sort((a, b) => a - b);
  for (const depth of depths) {
    const level = records
      .filter((s) => s.depth === depth)
      .map((s) => ({ record: s, doc: toDocument(s, lineages.get(s.id)!, position, index) }))
      .sort((a, b) => compareSummaries(a.doc, span(a.record), b.doc, span(b.record)));
    for (const { record, doc } of level) {
      index.set(record.id, summaries.length);
      summaries.push(doc);
    }
  }
  const frontier = (await store.getFrontier(conv.id)).items.map((it) =>
    it.kind === "message" ? { message: position.get(it.messageId)! } : { summary: index.get(it.summaryId)! },
  );
  // What the store kept with broken tool pairing (a call cut short, …) is marked, so it imports again.
  const unpaired = pairingIssues(stored.map((m) => m.message as unknown as Record<string, unknown>));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    sessionId,
    messages: stored.map((m, i) => ({
      message: m.message as unknown as ConversationExport["messages"][number]["message"],
      createdAt: m.createdAt,
      ...(unpaired.has(i) ? { unpaired: true as const } : {}),
    })),
    summaries,
    frontier,
  };
}

function span(s: SummaryRecord): { first: number; last: number } {
  return { first: s.firstSeq, last: s.lastSeq };
}

function toDocument(
  s: SummaryRecord,
  lineage: { messageIds: number[]; childSummaryIds: string[] },
  position: ReadonlyMap<number, number>,
  index: ReadonlyMap<string, number>,
): ExportedSummary {
  return {
    kind: s.kind,
    depth: s.depth,
    content: s.content,
    tokens: s.tokens,
    level: s.level,
    model: s.model,
    meta: s.meta,
    createdAt: s.createdAt,
    ...(s.kind === "leaf" ? { messages: lineage.messageIds.map((id) => position.get(id)!) } : { children: lineage.childSummaryIds.map((id) => index.get(id)!) }),
  };
}
