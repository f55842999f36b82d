import { importing } from "./import-drain.js";
import { defaultTokenCounter, raceAbortOrNull } from "@context-engine/core";
import type { CompressOptions, Message } from "@context-engine/core";
import { keepRequest, turnRequest } from "../assembly/keep-request.js";
import { prepareSteps } from "../compaction/runner.js";
import type { KnownFrontier } from "../assembly/row-cache.js";
import type { ConversationRecord, CompactionLock, FrontierItem, LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import { extendedView, plannerItems, publishWork, viewAfterIngest } from "./plan-view.js";
import { runDeps } from "./preparation.js";
import { sameJson } from "./same-json.js";
import type { EngineSession } from "./session.js";
import { assemble, headTokens, ingest } from "./turn.js";
import { deadlineSignal } from "../deadline.js";

/** What one compress did, for the caller's bookkeeping. */
export interface CompressOutcome {
  messages: Message[];
  /** False when the result is the caller's list (nothing changed, or the pass was aborted). */
  changed: boolean;
}

/**
 * One compaction, inside the session's lock: ingest the host's list, publish
 * what background preparation computed, run blocking passes while the
 * frontier is above the target (under the store's compaction lock, so no two
 * processes compact one conversation at once), then assemble the context.
 */
export async function runCompress(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, messages: Message[], options: CompressOptions, started: number): Promise<CompressOutcome> {
  parts.metrics.compressCalls++;
  const unchanged = { messages, changed: false };
  const rejectionsBefore = parts.summarizer.stats.rejections;
  const { head, result: ingested } = await ingest(parts, store, s, messages, { times: options.messageTimes });
  // What was appended joins the planner's copy from the ingest itself: a long history's frontier is not read back.
  await viewAfterIngest(parts.shapes, store, s, ingested);
  const signal = options.signal;

  // Work prepared after earlier turns: wait for it if it is still running, never past the time budget.
  if (s.preparing) {
    const wait = deadlineSignal(Math.max(1, parts.config.compress_time_budget_ms - (Date.now() - started)), signal);
    const work = await raceAbortOrNull(s.preparing, wait.signal)
      .catch(() => null)
      .finally(() => wait.clear());
    if (work && !s.prepared) s.offerPrepared(work);
  }
  if (signal?.aborted) return unchanged;

  const pass = (lock: CompactionLock | undefined) => compactionPass(parts, store, s, options, started, headTokens(head), lock);
  // While an import stores its backlog the frontier has a gap where it goes: no run may span it (the import's end starts the drain).
  const idle = { value: { published: 0, stale: 0, aborted: false } };
  const locked = importing(s) ? idle : store.withCompactionLock ? await store.withCompactionLock(s.conversationId, pass) : { value: await pass(undefined) };
  // Another process is compacting this conversation: assemble from what it has published so far.
  const outcome = locked?.value ?? { published: 0, stale: 0, aborted: false };
  if (!locked) parts.logger.debug("lcm: another process is compacting this conversation; assembling without a pass", { sessionId: s.sessionId });
  if (outcome.aborted || signal?.aborted) return unchanged;
  parts.metrics.published += outcome.published;
  parts.metrics.stalePrepared += outcome.stale;

  // System prompt + the summaries that fit + the fresh tail (+ the turn's request, always: the host's incoming one when it sends that itself).
  const known = await afterPass(parts, store, s, outcome.published > 0);
  const assembled = await assemble(parts, store, s, head, assemblyBudget(parts, s, known.conversation, head), known);
  const kept = keepRequest(assembled.messages, turnRequest(messages, options.incomingMessage), head.length);
  const result = { ...assembled, messages: kept.messages, tokens: assembled.tokens + kept.addedTokens };
  if (signal?.aborted) return unchanged;
  s.noteCompaction({
    at: new Date().toISOString(),
    durationMs: Date.now() - started,
    summariesPublished: outcome.published,
    staleSteps: outcome.stale,
    // The host's own count when it gives one: counting its whole list again is a walk over every message.
    tokensBefore: options.currentTokens ?? defaultTokenCounter.countMessages(messages),
    tokensAfter: result.tokens,
    omittedItems: result.omittedItems,
    ...(locked ? {} : { skipped: "another process holds this conversation's compaction lock" }),
    // A model answer was refused by the acceptance checks: this pass used a terser level or the deterministic summary.
    ...(parts.summarizer.stats.rejections > rejectionsBefore ? { rejected: parts.summarizer.lastRejection } : {}),
  });
  if (sameMessages(result.messages, messages)) return unchanged;
  // The host continues from this list: where it ends is where the next turn's list starts to be new.
  await ingest(parts, store, s, result.messages, { stored: true });
  return { messages: result.messages, changed: true };
}

/**
 * What the compressed list may take. A frontier still over the threshold after the bounded passes (a long history
 * handed over at once: the scheduled drain takes the rest) is assembled to the target, as a compaction of a
 * grown conversation leaves it, not to the most a request may take: a list just under the threshold would make
 * every later request of the host go through `selectContext`'s ingest and a preparation until the next compress.
 */
function assemblyBudget(parts: EngineParts, s: EngineSession, conv: ConversationRecord | null, head: Message[]): number {
  const full = parts.budgets.assembly();
  // An import still storing its backlog is such a history too, though its stored frontier is only the tail yet.
  if (!conv || (conv.frontierTokens < parts.budgets.drainAt() && !importing(s))) return full;
  return Math.min(full, parts.budgets.target() + headTokens(head));
}

/**
 * The conversation after the pass, read once for the budget and the assembly. After a publish here, its frontier
 * too, from the session's planner copy (kept current by the publish, extended by what was appended since), so the
 * assembly does not read the new frontier's tail again; none when the copy does not match the record.
 */
async function afterPass(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, published: boolean): Promise<KnownFrontier> {
  const conversation = await store.getConversation(s.conversationId);
  if (conversation) s.noteConversation(conversation);
  if (!conversation || !published) return { conversation };
  const view = await extendedView(parts.shapes, store, s);
  if (!view || view.version !== conversation.frontierVersion || view.count !== conversation.frontierCount) return { conversation };
  const frontier: FrontierItem[] = [];
  for (const it of view.items) {
    if (it.kind === "pending") return { conversation };
    frontier.push(it.kind === "message" ? { kind: "message", messageId: it.messageId, ordinal: it.ordinal, tokens: it.tokens } : { kind: "summary", summaryId: it.summaryId, ordinal: it.ordinal, tokens: it.tokens });
  }
  return { conversation, frontier };
}

/** Publish prepared work, then blocking passes down to the target (bounded; all-or-nothing on abort). */
async function compactionPass(
  parts: EngineParts,
  store: LcmStoreDriver,
  s: EngineSession,
  options: CompressOptions,
  started: number,
  headTokenCount: number,
  lock: CompactionLock | undefined,
): Promise<{ published: number; stale: number; aborted: boolean }> {
  const signal = options.signal;
  let published = 0;
  let stale = 0;
  const prepared = s.takePrepared();
  if (prepared?.steps.length) {
    const out = await publishWork(s, store, prepared, parts.logger, lock);
    parts.cache.rememberSummaries(out.committed);
    published += out.committed.length;
    stale += out.stale;
  }
  const stopAt = options.force ? 0 : Math.max(0, parts.budgets.target() - headTokenCount);
  const conv = await store.getConversation(s.conversationId);
  if (!conv || !(options.force || conv.frontierTokens > stopAt)) return { published, stale, aborted: false };
  const start = await plannerItems(parts.shapes, store, s);
  const work = await prepareSteps(runDeps(parts, store), s.conversationId, start, {
    plan: parts.budgets.plan(true),
    maxPasses: parts.config.max_passes,
    stopAtTokens: stopAt,
    modelDeadline: started + parts.config.compress_time_budget_ms,
    ...(options.focusTopic ? { focusTopic: options.focusTopic } : {}),
    ...(signal ? { signal } : {}),
  }).catch((error: unknown) => {
    if (signal?.aborted) return null;
    throw error;
  });
  if (signal?.aborted) {
    // Keep the finished summaries for the next pass instead of throwing the work away; publish nothing now.
    if (work?.steps.length) s.offerPrepared(work);
    return { published, stale, aborted: true };
  }
  if (work?.steps.length) {
    const out = await publishWork(s, store, work, parts.logger, lock);
    parts.cache.rememberSummaries(out.committed);
    published += out.committed.length;
    stale += out.stale;
  }
  return { published, stale, aborted: false };
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
  return true;
}
