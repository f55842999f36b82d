import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { assembleContext } from "../assembly/assembler.js";
import type { AssembleResult } from "../assembly/assembler.js";
import { isEngineMessage } from "../assembly/render.js";
import type { IngestResult, LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import type { SessionState } from "./sessions.js";

export interface Ingested {
  result: IngestResult;
  /** The host's leading system/developer messages (its prompt, not history). */
  head: Message[];
  /** Stored id -> the host's own object, so assembly keeps the host's exact bytes. */
  live: Map<number, Message>;
}

/** Store what is new in a host list (idempotent, one store call). Leading system messages are the host's prompt, not history. */
export async function ingest(parts: EngineParts, store: LcmStoreDriver, s: SessionState, messages: readonly Message[]): Promise<Ingested> {
  let headCount = 0;
  while (headCount < messages.length && (messages[headCount]!.role === "system" || messages[headCount]!.role === "developer")) headCount++;
  const result = await store.ingest(s.conversationId, messages, {
    isSynthetic: (m, i) => i < headCount || isEngineMessage(m),
    // An earlier import's index backlog is drained off the hook path, not inside this call.
    drainBacklog: false,
  });
  parts.metrics.ingested += result.appended;
  parts.indexing.kick(store);
  if (result.appended > 0) {
    // The counters getStatus shows, kept without another store call.
    const snap = s.snapshot;
    s.snapshot = { ...snap, messageCount: snap.messageCount + result.appended, lastSeq: result.lastSeq ?? snap.lastSeq, updatedAt: Date.now() };
  }
  const live = new Map<number, Message>();
  result.ids.forEach((id, i) => {
    if (id !== null && i >= headCount) live.set(id, messages[i]!);
  });
  return { result, head: messages.slice(0, headCount), live };
}

/** The assembled context for a budget: cached per frontier version, budget and system prompt. */
export async function assemble(
  parts: EngineParts,
  store: LcmStoreDriver,
  s: SessionState,
  head: Message[],
  live: ReadonlyMap<number, Message>,
  budget = parts.budgets.assembly(),
): Promise<AssembleResult> {
  const conv = await store.getConversation(s.conversationId);
  if (conv) s.snapshot = conv;
  const key = `${conv?.frontierVersion}|${budget}|${JSON.stringify(head)}`;
  if (s.lastAssembly?.key === key) return s.lastAssembly.result;
  parts.metrics.assemblies++;
  const result = await assembleContext(store, parts.cache, {
    conversationId: s.conversationId,
    head,
    budget,
    largeMessageTokens: parts.budgets.largeMessage(budget),
    live,
  });
  s.lastAssembly = { key, result };
  return result;
}

export function headTokens(head: readonly Message[]): number {
  return defaultTokenCounter.countMessages(head as Message[]);
}
