import { importNote } from "./import-drain.js";
import { defaultTokenCounter, describeErrorWithCauses } from "@context-engine/core";
import type { Message, PruneResult } from "@context-engine/core";
import { shortenMessage } from "../assembly/render.js";
import { applyRetention } from "../retention/index.js";
import type { RetentionReport } from "../retention/index.js";
import type { LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import type { EngineSession } from "./session.js";
import { handleLcmToolCall } from "../tools/index.js";
import { ingest } from "./turn.js";

/** `engines.lcm.retention` applied now; live sessions (of every holder of the store) are protected. Null when no policy is set. */
export async function retain(parts: EngineParts): Promise<RetentionReport | null> {
  const policy = parts.config.retention;
  const store = parts.handle.current;
  if (!policy || !store) return null;
  try {
    const report = await applyRetention(store, {
      ...(policy.max_age_days !== undefined ? { maxAgeDays: policy.max_age_days } : {}),
      ...(policy.max_bytes !== undefined ? { maxBytes: policy.max_bytes } : {}),
      ...(policy.max_conversations !== undefined ? { maxConversations: policy.max_conversations } : {}),
      protect: parts.handle.protectedSessions(),
    });
    if (report.deleted.length) {
      parts.cache.clear();
      parts.logger.info("lcm: retention deleted conversations", { deleted: report.deleted.length, bytesAfter: report.storedBytesAfter });
    }
    return report;
  } catch (error) {
    parts.logger.warn("lcm: retention failed", { error: describeErrorWithCauses(error) });
    return null;
  }
}

/** Old large tool results shortened in place of an LLM pass: the originals are in the store, so nothing is lost. */
export async function pruneLargeResults(
  parts: EngineParts,
  store: LcmStoreDriver,
  s: EngineSession,
  messages: Message[],
  protectLastN: number,
  times?: unknown,
): Promise<PruneResult> {
  // Every stored id of the list is needed here, not only the new ones: compare it whole.
  const { result } = await s.locked(() => ingest(parts, store, s, messages, { reconcile: true, times }));
  const keepFrom = Math.max(0, messages.length - protectLastN);
  const limit = parts.config.large_message_tokens;
  const large = (m: Message, i: number) => i < keepFrom && m.role === "tool" && result.ids[i] != null && defaultTokenCounter.countMessage(m) > limit;
  const ids = messages.flatMap((m, i) => (large(m, i) ? [result.ids[i]!] : []));
  if (!ids.length) return { messages, pruned: 0 };
  const seqs = new Map((await store.getMessagesByIds(ids)).map((m) => [m.id, m.seq]));
  const out = messages.map((m, i) => {
    if (!large(m, i)) return m;
    const id = result.ids[i]!;
    return shortenMessage(m, { id, seq: seqs.get(id) ?? i }, defaultTokenCounter.countMessage(m), Math.floor(limit / 4));
  });
  return { messages: out, pruned: ids.length };
}

/** An LCM tool call inside the session's lock: the current turn must be searchable too, so what the host shows is ingested first. */
export async function runToolCall(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, name: string, args: unknown, messages?: readonly Message[]): Promise<string> {
  if (messages?.length) await ingest(parts, store, s, messages);
  const note = importNote(s);
  return handleLcmToolCall(store, name, args, { conversationId: s.conversationId, allowCrossConversation: parts.config.cross_conversation, embeddings: parts.embeddings, ...(note ? { importNote: note } : {}) });
}
