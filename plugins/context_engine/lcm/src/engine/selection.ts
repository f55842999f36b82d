import { defaultTokenCounter } from "@context-engine/core";
import type { Message, SelectContextOptions } from "@context-engine/core";
import { isRequest, keepRequest, turnRequest } from "../assembly/keep-request.js";
import { shortenMessage } from "../assembly/render.js";
import type { LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import { publishWork } from "./plan-view.js";
import { startPreparing } from "./preparation.js";
import type { EngineSession } from "./session.js";
import { assemble, ingest } from "./turn.js";

/**
 * `selectContext` past its first checks, inside the session's lock: a request that fits is stored and
 * summaries are prepared from it (it nears the threshold); one that does not is re-selected. Null: send the
 * request as it is.
 */
export async function selectLocked(
  parts: EngineParts,
  store: LcmStoreDriver,
  s: EngineSession,
  request: Message[],
  sizes: { tokens: number; limit: number },
  options: SelectContextOptions,
): Promise<{ messages: Message[]; tokens: number } | null> {
  if (sizes.tokens < sizes.limit) {
    await ingest(parts, store, s, request, { times: options.messageTimes });
    startPreparing(parts, store, s);
    return null;
  }
  const result = await reselect(parts, store, s, request, sizes, options.incomingMessage, options.messageTimes);
  // A selection over the host's budget would be dropped anyway: leave the request to its compaction.
  if (!result || result.tokens > parts.budgets.input()) return null;
  parts.metrics.selections++;
  return result;
}

/**
 * Re-select a request that would not fit (inside the session's lock): while
 * the host keeps appending to a list already rescued, the same selection is
 * extended so its prefix stays byte-identical; otherwise the assembled
 * context below the usual budget, with the largest messages shortened if it
 * still does not fit. Null when nothing smaller can be offered.
 */
export async function reselect(
  parts: EngineParts,
  store: LcmStoreDriver,
  s: EngineSession,
  request: Message[],
  sizes: { tokens: number; limit: number },
  incoming?: Message | null,
  times?: unknown,
): Promise<{ messages: Message[]; tokens: number } | null> {
  const { tokens, limit } = sizes;
  const { head } = await ingest(parts, store, s, request, { times });
  const live = s.live;
  const r = s.rescue;
  // The same request again (a retry) gets the same selection too, even if background work published meanwhile.
  if (r && request.length >= r.hostLength && JSON.stringify(request[r.hostLength - 1]) === r.hostLast) {
    const extended = [...r.selection, ...request.slice(r.hostLength)];
    const extendedTokens = defaultTokenCounter.countMessages(extended);
    if (extendedTokens < limit) {
      s.noteRescue({ selection: extended, hostLength: request.length, hostLast: JSON.stringify(request[request.length - 1]) });
      return { messages: extended, tokens: extendedTokens };
    }
  }
  const prepared = s.takePrepared();
  if (prepared?.steps.length) {
    const out = await publishWork(s, store, prepared, parts.logger);
    parts.metrics.published += out.committed.length;
  }
  // Re-select below the usual budget, so the following requests can append for a while.
  const budgets = parts.budgets;
  const budget = Math.max(256, Math.min(Math.floor((budgets.target() + budgets.assembly()) / 2), limit - 64));
  // The turn's request: the host's incoming message when it appends that itself (then nothing to quote).
  const latest = turnRequest(request, incoming);
  const raw = await assemble(parts, store, s, head, budget);
  const kept = keepRequest(raw.messages, latest, head.length);
  const assembled = { messages: kept.messages, tokens: raw.tokens + kept.addedTokens };
  // What the assembly must keep (the fresh tail, a huge paste) can still be too big: cut the largest messages.
  const result = assembled.tokens > limit ? await fitSelection(store, assembled.messages, live, limit, latest) : assembled;
  if (result.tokens >= tokens) return null;
  s.noteRescue({ selection: result.messages, hostLength: request.length, hostLast: JSON.stringify(request[request.length - 1]) });
  // The host is not compacting: prepare summaries so the next re-selection keeps more.
  if (parts.config.prepare_in_background) startPreparing(parts, store, s);
  return result;
}

/**
 * Shorten the largest non-system messages of a selection until it fits
 * `limit`: head and tail shown, the original kept whole in the store, with
 * a note naming the `lcm_expand` id that returns it.
 */
async function fitSelection(
  store: LcmStoreDriver,
  messages: readonly Message[],
  live: ReadonlyMap<number, Message>,
  limit: number,
  request: Message | null,
): Promise<{ messages: Message[]; tokens: number }> {
  const ids = new Map<string, number>();
  for (const [id, m] of live) ids.set(JSON.stringify(m.content), id);
  const out = messages.slice();
  let total = defaultTokenCounter.countMessages(out);
  const tried = new Set<number>();
  for (let guard = 0; guard < out.length && total > limit; guard++) {
    let at = -1;
    let size = 0;
    out.forEach((m, i) => {
      // The request stays whole: the host checks that the turn's user message reaches the model.
      if (tried.has(i) || m.role === "system" || m.role === "developer" || typeof m.content !== "string" || isRequest(m, request)) return;
      const t = defaultTokenCounter.countMessage(m);
      if (t > size) [at, size] = [i, t];
    });
    if (at < 0 || size < 200) break;
    tried.add(at);
    const id = ids.get(JSON.stringify(out[at]!.content));
    if (id === undefined) continue;
    const keep = Math.max(100, size - (total - limit) - 80);
    const stored = await store.getMessage(id);
    const next = shortenMessage(out[at]!, { id, seq: stored?.seq ?? 0 }, size, keep);
    const nextTokens = defaultTokenCounter.countMessage(next);
    if (nextTokens >= size) continue;
    total += nextTokens - size;
    out[at] = next;
  }
  return { messages: out, tokens: total };
}
