/** What a tool call knows about its caller. */
export interface LcmToolContext {
  /** The caller's conversation (scope of every tool unless all_conversations). Null: no conversation yet. */
  conversationId: number | null;
  /**
   * Whether all_conversations may be used (config `cross_conversation`, default false). When false, an id
   * of another conversation's message or summary is answered exactly like an id that does not exist.
   */
  allowCrossConversation?: boolean;
  /** The embedding provider when one is configured: lcm_grep then ranks by words and meaning. */
  embeddings?: import("../embeddings/embedder.js").Embeddings | null;
  /** Said with every search while the conversation's imported history is not all stored (engine/import-drain.ts). */
  importNote?: string;
}

/** Whether the caller may see an item of `ownerConversation`: "ok", or "hidden" (answer as not found), or the reason. */
export function scopeCheck(ctx: LcmToolContext, ownerConversation: number, allConversations: boolean, what: string): "ok" | "hidden" | string {
  if (ctx.conversationId === ownerConversation) return "ok";
  if (ctx.allowCrossConversation !== true) return "hidden";
  if (!allConversations) return `${what} belongs to another conversation; pass all_conversations: true to read across conversations`;
  return "ok";
}

/** The error for all_conversations when cross-conversation reads are off. */
export function crossConversationDisabled(tool: string): string {
  return `${tool}: all_conversations is not available: cross-conversation reads are disabled (engines.lcm.cross_conversation)`;
}
