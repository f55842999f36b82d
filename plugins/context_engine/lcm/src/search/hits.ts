import type { LcmSearchStore } from "../store/search-types.js";
import { buildSnippet } from "./snippet.js";
import type { SearchHit } from "./types.js";

/** A ranked or scanned item before it is turned into a hit. */
export interface Candidate {
  type: "message" | "summary";
  rowid: number;
  score: number;
  createdAt: number;
  /** A snippet already cut around a regex match. */
  snippet?: string;
}

export function snippetAround(text: string, index: number, length: number, chars = 160): string {
  const half = Math.max(20, Math.floor((chars - length) / 2));
  const start = Math.max(0, index - half);
  const end = Math.min(text.length, index + length + half);
  return `${start > 0 ? "…" : ""}${text.slice(start, index)}«${text.slice(index, index + length)}»${text.slice(index + length, end)}${end < text.length ? "…" : ""}`.replace(/\s+/g, " ");
}

function round(n: number): number {
  return Number(n.toPrecision(4));
}

/** Hits for a page of candidates, in order, read in a few statements. */
export async function toHits(
  search: LcmSearchStore,
  page: readonly Candidate[],
  options: { matcher: RegExp | null; snippetChars?: number; scored: boolean },
): Promise<SearchHit[]> {
  const messageIds = page.filter((c) => c.type === "message").map((c) => c.rowid);
  const summaryIds = page.filter((c) => c.type === "summary").map((c) => c.rowid);
  const messages = await search.messageHits(messageIds);
  const summaries = await search.summaryHits(summaryIds);
  const bodies = await search.messageBodies(page.filter((c) => c.type === "message" && c.snippet === undefined).map((c) => c.rowid));
  const out: SearchHit[] = [];
  for (const c of page) {
    const score = options.scored ? { score: round(c.score) } : {};
    if (c.type === "summary") {
      const s = summaries.get(c.rowid);
      if (!s) continue;
      out.push({
        type: "summary",
        ref: s.id,
        conversationId: s.conversationId,
        sessionId: await search.sessionOf(s.conversationId),
        createdAt: s.createdAt,
        snippet: c.snippet ?? buildSnippet(s.content, options.matcher, options.snippetChars),
        ...score,
        summaryId: s.id,
        depth: s.depth,
        kind: s.kind,
      });
      continue;
    }
    const m = messages.get(c.rowid);
    if (!m) continue;
    const coveredBy = await search.coveringChain(m.id);
    out.push({
      type: "message",
      ref: `msg_${m.id}`,
      conversationId: m.conversationId,
      sessionId: await search.sessionOf(m.conversationId),
      createdAt: m.createdAt,
      snippet: c.snippet ?? buildSnippet(bodies.get(m.id) ?? "", options.matcher, options.snippetChars),
      ...score,
      messageId: m.id,
      seq: m.seq,
      role: m.role,
      inContext: m.inContext,
      ...(coveredBy.length ? { coveredBy } : {}),
    });
  }
  return out;
}
