import { z } from "zod";
import type { DeleteReport, LcmStoreDriver } from "../store/types.js";

export type { DeleteReport } from "../store/types.js";

/** `engines.lcm.retention` in config.yaml. Every limit is optional; none set = keep everything. */
export const RetentionPolicySchema = z.strictObject({
  max_age_days: z.number().positive().optional(),
  /** Budget for stored text (UTF-8 bytes of every message) across conversations. */
  max_bytes: z.number().int().positive().optional(),
  max_conversations: z.number().int().positive().optional(),
});

export interface RetentionPolicy {
  /** Delete conversations not updated for this many days. */
  maxAgeDays?: number;
  /** Delete the least recently updated conversations until the stored text is at most this many bytes. */
  maxBytes?: number;
  /** Keep at most this many conversations (most recently updated). */
  maxConversations?: number;
  /** Session ids never deleted by the policy (e.g. the live session). */
  protect?: readonly string[];
  now?: number;
}

export interface RetentionReport {
  deleted: Array<DeleteReport & { reason: "age" | "size" | "count" }>;
  storedBytesBefore: number;
  storedBytesAfter: number;
}

/** Hard delete of one conversation (see `LcmStore.deleteConversation`). */
export async function deleteConversation(store: LcmStoreDriver, conversationId: number): Promise<DeleteReport | null> {
  return await store.deleteConversation(conversationId);
}

export async function deleteSession(store: LcmStoreDriver, sessionId: string): Promise<DeleteReport | null> {
  const conv = await store.findConversation(sessionId);
  return conv ? await deleteConversation(store, conv.id) : null;
}

/** Apply an age / size / count policy, least recently updated conversations first. */
export async function applyRetention(store: LcmStoreDriver, policy: RetentionPolicy): Promise<RetentionReport> {
  const now = policy.now ?? Date.now();
  const protect = new Set(policy.protect ?? []);
  const rows = await store.conversationUsage();
  const before = rows.reduce((a, r) => a + r.textBytes, 0);
  let total = before;
  let count = rows.length;
  const deleted: RetentionReport["deleted"] = [];
  for (const r of rows) {
    if (protect.has(r.sessionId)) continue;
    let reason: "age" | "size" | "count" | null = null;
    if (policy.maxAgeDays !== undefined && r.updatedAt < now - policy.maxAgeDays * 86_400_000) reason = "age";
    else if (policy.maxConversations !== undefined && count > policy.maxConversations) reason = "count";
    else if (policy.maxBytes !== undefined && total > policy.maxBytes) reason = "size";
    if (!reason) continue;
    const rep = await deleteConversation(store, r.id);
    if (!rep) continue;
    deleted.push({ ...rep, reason });
    total -= r.textBytes;
    count--;
  }
  return { deleted, storedBytesBefore: before, storedBytesAfter: total };
}
