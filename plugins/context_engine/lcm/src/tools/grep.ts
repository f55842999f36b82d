import { toolError } from "@context-engine/core";
import { searchHistory } from "../search/search.js";
import { searchWithVectors } from "../search/vector-search.js";
import type { LcmStoreDriver } from "../store/types.js";
import { crossConversationDisabled, type LcmToolContext } from "./context.js";
import { iso } from "./refs.js";
import type { z } from "zod";
import type { GrepArgsSchema } from "./schemas.js";

export async function runGrep(store: LcmStoreDriver, args: z.infer<typeof GrepArgsSchema>, ctx: LcmToolContext): Promise<string> {
  if (args.all_conversations && ctx.allowCrossConversation !== true) return toolError(crossConversationDisabled("lcm_grep"));
  if (!args.all_conversations && ctx.conversationId === null) {
    return JSON.stringify({ query: args.query, mode: args.mode, hits: [], nextCursor: null, complete: true, notes: ["nothing is stored for this conversation yet"] });
  }
  const since = args.since ? Date.parse(args.since) : undefined;
  const before = args.before ? Date.parse(args.before) : undefined;
  if (since !== undefined && before !== undefined && since >= before) return toolError("lcm_grep: since must be earlier than before");
  const started = performance.now();
  const query = {
    query: args.query,
    mode: args.mode,
    scope: args.scope,
    conversationId: args.all_conversations ? null : ctx.conversationId,
    ...(args.roles ? { roles: args.roles } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(before !== undefined ? { before } : {}),
    sort: args.sort,
    limit: args.limit,
    cursor: args.cursor ?? null,
    ignoreCase: args.ignore_case,
    ...(args.recency_boost ? { recencyBoost: args.recency_boost } : {}),
    ...(args.exclude_in_context ? { excludeInContext: true } : {}),
  };
  const result = ctx.embeddings
    ? await searchWithVectors(store, query, ctx.embeddings)
    : args.mode === "semantic"
      ? withNote(await searchHistory(store, { ...query, mode: "full_text" }), "semantic mode needs an embedding provider (engines.lcm.embeddings): ranked by words")
      : await searchHistory(store, { ...query, mode: args.mode });
  if (ctx.importNote && !args.all_conversations) result.notes.push(ctx.importNote);
  return JSON.stringify({
    query: args.query,
    mode: result.mode,
    hits: result.hits.map((h) => ({
      ref: h.ref,
      type: h.type,
      ...(h.role ? { role: h.role } : {}),
      ...(h.seq !== undefined ? { seq: h.seq } : {}),
      ...(h.depth !== undefined ? { depth: h.depth, kind: h.kind } : {}),
      at: iso(h.createdAt),
      ...(args.all_conversations ? { session: h.sessionId } : {}),
      ...(h.score !== undefined ? { score: h.score } : {}),
      ...(h.inContext !== undefined ? { in_context: h.inContext } : {}),
      ...(h.coveredBy ? { covered_by: h.coveredBy } : {}),
      snippet: h.snippet,
    })),
    nextCursor: result.nextCursor,
    complete: result.complete,
    ...(result.scanned !== undefined ? { scanned: result.scanned } : {}),
    ...(result.notes.length ? { notes: result.notes } : {}),
    ms: Math.round(performance.now() - started),
  });
}

function withNote<R extends { notes: string[] }>(result: R, note: string): R {
  result.notes.push(note);
  return result;
}
