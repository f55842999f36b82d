import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { assembleContext } from "../assembly/assembler.js";
import type { AssembleResult } from "../assembly/assembler.js";
import type { KnownFrontier } from "../assembly/row-cache.js";
import { isEngineMessage } from "../assembly/render.js";
import type { IngestOptions, IngestResult, LcmStoreDriver } from "../store/types.js";
import { noteImport } from "./import-drain.js";
import type { EngineParts } from "./parts.js";
import type { EngineSession } from "./session.js";

export interface Ingested {
  result: IngestResult;
  /** The host's leading system/developer messages (its prompt, not history). */
  head: Message[];
}

/** What a host told of the turn a list finishes (`TurnCompleteMeta`), already checked. */
export interface TurnIdentity {
  key?: string;
  turnMessages?: readonly Message[];
  messageIds?: readonly (string | null)[];
}

export interface IngestRequest {
  /** The turn this list finishes, when the host said. */
  turn?: TurnIdentity;
  /** Compare the whole list with the stored history even where a writer position holds (to learn every stored id). */
  reconcile?: boolean;
  /** The list is the engine's own output, assembled from the store: record where it ends, store nothing. */
  stored?: boolean;
  /** The host's `messageTimes` for the list (when each message was said), unchecked. */
  times?: unknown;
}

/**
 * Store what is new in a host list, once (one store call). New means: after
 * the writer's position when it still holds (O(new messages)), else not
 * provably stored; a turn key already stored means the turn is kept already.
 * Leading system messages are the host's prompt, not history.
 */
export async function ingest(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, messages: readonly Message[], request: IngestRequest = {}): Promise<Ingested> {
  let headCount = 0;
  while (headCount < messages.length && (messages[headCount]!.role === "system" || messages[headCount]!.role === "developer")) headCount++;
  // The host's times, when they line up with the list: messages (and the summaries over them) are dated when they were said.
  // The store checks only the entries it stores, so a turn stays O(new messages).
  const timestamps = Array.isArray(request.times) && request.times.length === messages.length ? (request.times as IngestOptions["timestamps"]) : undefined;
  const isSynthetic = (m: Message, i: number) => i < headCount || isEngineMessage(m);
  const options: IngestOptions = {
    isSynthetic,
    positions: request.reconcile ? [] : s.positions,
    ...(request.stored ? { mode: "stored" as const } : {}),
    seenIds: s.own,
    // An earlier import's index backlog is drained off the hook path, not inside this call.
    drainBacklog: false,
    ...turnOptions(messages, headCount, request.turn),
    ...(timestamps ? { timestamps } : {}),
    ...importOptions(parts, s),
  };
  const result = await store.ingest(s.conversationId, messages, options);
  noteImport(s, result.pendingImport, result.importAbandoned, messages, { isSynthetic, ...(timestamps ? { timestamps } : {}) });
  if (result.importAbandoned > 0) parts.logger.warn("lcm: an import's backlog was given up: no list at hand shows it any more", { sessionId: s.sessionId, messages: result.importAbandoned });
  parts.imports.kick(parts, store, s);
  parts.metrics.ingested += result.appended;
  if (result.alignment === "reconciled" || result.alignment === "no-overlap") parts.metrics.reconciled++;
  if (result.disagreed > 0) noteDisagreement(parts, s, result);
  parts.indexing.kick(store);
  parts.embeddings?.kick(store);
  s.recordIngest(result, messages, headCount);
  return { result, head: messages.slice(0, headCount) };
}

/**
 * A long history's first ingest stores the tail the assembled context can hold (at least the fresh tail) and
 * leaves the rest to the background import; an import in progress is handed its list in case it must finish.
 */
function importOptions(parts: EngineParts, s: EngineSession): Partial<IngestOptions> {
  const above = parts.config.import_in_background_above;
  const source = s.importing?.source;
  return {
    ...(above > 0 ? { deferBacklog: { above, tailTokens: parts.budgets.assembly(), minTail: parts.config.fresh_tail_count, countTokens: (m: Message) => defaultTokenCounter.countMessage(m) } } : {}),
    ...(source ? { importSource: source } : {}),
  };
}

/** The turn's key and message ids, applied where the turn's messages sit in the list (its end). */
function turnOptions(messages: readonly Message[], headCount: number, turn: TurnIdentity | undefined): Partial<IngestOptions> {
  const added = turn?.turnMessages;
  if (!turn?.key || !added?.length) return {};
  const from = messages.length - added.length;
  // A host whose list does not end with the turn it names: the list alone decides, the key is only recorded.
  const placed = from >= headCount && added.every((m, i) => m?.role === messages[from + i]?.role);
  if (!placed) return { key: turn.key, keyFrom: messages.length };
  const ids = turn.messageIds;
  const messageKeys = ids?.length === added.length ? ids : undefined;
  return { key: turn.key, keyFrom: from, ...(messageKeys ? { messageKeys, messageKeysFrom: from } : {}) };
}

/** A host list that disagrees with the store: logged once per session (what was not provably stored was stored). */
function noteDisagreement(parts: EngineParts, s: EngineSession, result: IngestResult): void {
  const detail = { sessionId: s.sessionId, stored: result.disagreed, alignment: result.alignment };
  if (s.firstDisagreement()) parts.logger.warn("lcm: the host's list disagrees with the stored history; messages not found in the store were stored, none skipped", detail);
  else parts.logger.debug("lcm: the host's list disagrees with the stored history again", detail);
}

/**
 * The assembled context for a budget: cached per frontier version, budget and system prompt. `known`: the
 * conversation as the caller just read it (and its frontier, when current), not read again.
 */
export async function assemble(
  parts: EngineParts,
  store: LcmStoreDriver,
  s: EngineSession,
  head: Message[],
  budget = parts.budgets.assembly(),
  known?: KnownFrontier,
): Promise<AssembleResult> {
  const conv = known ? known.conversation : await store.getConversation(s.conversationId);
  if (conv) s.noteConversation(conv);
  const key = `${conv?.frontierVersion}|${budget}|${JSON.stringify(head)}`;
  const cached = s.cachedAssembly(key);
  if (cached) return cached;
  parts.metrics.assemblies++;
  const result = await assembleContext(store, parts.cache, {
    conversationId: s.conversationId,
    head,
    budget,
    largeMessageTokens: parts.budgets.largeMessage(budget),
    live: s.live,
    shapeOf: (id) => parts.shapes.get(id),
    known: { conversation: conv, ...(known?.frontier ? { frontier: known.frontier } : {}) },
  });
  s.noteAssembly(key, result);
  return result;
}

export function headTokens(head: readonly Message[]): number {
  return defaultTokenCounter.countMessages(head as Message[]);
}
