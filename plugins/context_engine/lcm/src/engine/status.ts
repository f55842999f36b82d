import type { EngineParts } from "./parts.js";

/** `getStatus().lcm`: counters, the store in use and the current session's figures, all from memory. */
export function engineStatus(parts: EngineParts, closed: boolean): Record<string, unknown> {
  const lcm: Record<string, unknown> = { ...parts.metrics, backgroundCpuMs: parts.clock.backgroundCpuMs, summarizer: parts.summarizer.stats };
  const { handle } = parts;
  lcm.retrieval = parts.embeddings ? parts.embeddings.status() : { retrieval: "words" };
  lcm.store = { ...handle.description, open: handle.current !== null, ...(handle.failure ? { error: handle.failure.message } : {}) };
  if (closed) return lcm;
  // Figures as of the last refresh; this call schedules the next one (never awaited).
  handle.scheduleStatsRefresh();
  const db = handle.stats;
  if (db) lcm.database = { path: db.path, bytes: db.fileBytes, conversations: db.conversations, messages: db.messages, summaries: db.summaries };
  const s = parts.sessions.shown();
  if (s) {
    const conv = s.snapshot;
    lcm.session = {
      sessionId: s.sessionId,
      messages: conv.messageCount,
      messageTokens: conv.messageTokens,
      frontierItems: conv.frontierCount,
      frontierTokens: conv.frontierTokens,
      preparedSteps: s.prepared?.steps.length ?? 0,
      preparing: s.preparing !== null,
      draining: parts.drain.draining(s),
      // A long history's backlog still being stored (search and expand do not see it yet), or given up.
      ...(s.importing ? { import: { inProgress: s.importing.remaining > 0, remaining: s.importing.remaining, resumable: s.importing.source !== null, abandoned: s.importing.abandoned } } : {}),
      lastCompaction: s.lastCompaction,
    };
  }
  return lcm;
}

/** What `plugins info` shows beyond the name: the store in use (never a password) and the retrieval. */
export function describeEngine(parts: EngineParts): Record<string, string> {
  const d = parts.handle.description;
  const e = parts.embeddings;
  return {
    store: d.kind === "postgres" ? `PostgreSQL ${d.location} (schema ${d.schema})` : `SQLite ${d.location}`,
    retrieval: e ? `hybrid: words (BM25) + vectors (${e.model} at ${e.client.url})` : "words (BM25); no embedding provider configured",
  };
}

/** `getStatus().retrieval`: top level, in words, for hosts that show it (`/engine`); the details are under lcm.retrieval. */
export function retrievalInWords(parts: EngineParts): string {
  const e = parts.embeddings;
  return e ? `hybrid (words + ${e.model} vectors)${e.status().degraded ? ", degraded to words" : ""}` : "words (BM25)";
}
