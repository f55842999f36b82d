import type { LcmStore } from "../store/types.js";
import { SqliteLcmStore } from "../store/sqlite-store.js";

/** What a tool call knows about its caller. */
export interface LcmToolContext {
  /** The caller's conversation (scope of every tool unless all_conversations). Null: no conversation yet. */
  conversationId: number | null;
  /** Whether all_conversations may be used (default true). Set false to keep sessions isolated. */
  allowCrossConversation?: boolean;
}

export function sqliteStore(store: LcmStore): SqliteLcmStore {
  if (store instanceof SqliteLcmStore) return store;
  throw new Error("the LCM tools need the SQLite store from openLcmStore()");
}

/** Null when allowed, else the reason. */
export function scopeError(ctx: LcmToolContext, ownerConversation: number, allConversations: boolean, what: string): string | null {
  if (ctx.conversationId === ownerConversation) return null;
  if (!allConversations) {
    return `${what} belongs to another conversation; pass all_conversations: true to read across conversations`;
  }
  if (ctx.allowCrossConversation === false) return `${what} belongs to another conversation and cross-conversation reads are disabled`;
  return null;
}
