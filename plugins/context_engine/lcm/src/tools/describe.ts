import { toolError } from "@context-engine/core";
import type { z } from "zod";
import { coveringChain } from "../search/search.js";
import type { LcmStoreDriver } from "../store/types.js";
import { crossConversationDisabled, scopeCheck, type LcmToolContext } from "./context.js";
import { iso, messageRef, parseRef } from "./refs.js";
import type { DescribeArgsSchema } from "./schemas.js";

const LIST_CAP = 50;

export async function runDescribe(store: LcmStoreDriver, args: z.infer<typeof DescribeArgsSchema>, ctx: LcmToolContext): Promise<string> {
  if (args.all_conversations && ctx.allowCrossConversation !== true) return toolError(crossConversationDisabled("lcm_describe"));
  const ref = parseRef(args.id);
  if (!ref) return toolError(`lcm_describe: "${args.id}" is not a summary id (sum_ + 16 hex) or a message ref (msg_123)`);

  if (ref.kind === "summary") {
    const s = await store.getSummary(ref.id);
    if (!s) return toolError(`lcm_describe: no summary ${ref.id}`);
    const scope = scopeCheck(ctx, s.conversationId, args.all_conversations, `summary ${ref.id}`);
    if (scope === "hidden") return toolError(`lcm_describe: no summary ${ref.id}`);
    if (scope !== "ok") return toolError(`lcm_describe: ${scope}`);
    const lineage = await store.lineage(s.id);
    const children = (await store.getSummaries(lineage.childSummaryIds.slice(0, LIST_CAP))).map((c) => ({
      id: c.id,
      kind: c.kind,
      depth: c.depth,
      tokens: c.tokens,
      messages: c.descendantMessages,
      from: iso(c.earliestAt),
      to: iso(c.latestAt),
    }));
    return JSON.stringify({
      type: "summary",
      id: s.id,
      kind: s.kind,
      depth: s.depth,
      tokens: s.tokens,
      level: s.level,
      ...(s.model ? { model: s.model } : {}),
      time_span: { from: iso(s.earliestAt), to: iso(s.latestAt) },
      seq_span: { first: s.firstSeq, last: s.lastSeq },
      covers_messages: s.descendantMessages,
      source_tokens: s.sourceTokens,
      compression: s.sourceTokens > 0 ? Math.round((s.tokens / s.sourceTokens) * 1000) / 1000 : null,
      in_context: await store.inFrontier(s.conversationId, { kind: "summary", summaryId: s.id }),
      parents: lineage.parentSummaryIds,
      ...(children.length ? { children, children_total: lineage.childSummaryIds.length } : {}),
      ...(lineage.messageIds.length
        ? { source_messages: lineage.messageIds.slice(0, LIST_CAP).map(messageRef), source_messages_total: lineage.messageIds.length }
        : {}),
      created_at: iso(s.createdAt),
      content: s.content,
      hint: "lcm_expand with this id returns the original messages verbatim",
    });
  }

  const m = await store.getMessage(ref.id);
  if (!m) return toolError(`lcm_describe: no message ${messageRef(ref.id)}`);
  const scope = scopeCheck(ctx, m.conversationId, args.all_conversations, `message ${messageRef(ref.id)}`);
  if (scope === "hidden") return toolError(`lcm_describe: no message ${messageRef(ref.id)}`);
  if (scope !== "ok") return toolError(`lcm_describe: ${scope}`);
  const chain = await coveringChain(store, m.id);
  return JSON.stringify({
    type: "message",
    ref: messageRef(m.id),
    seq: m.seq,
    role: m.role,
    at: iso(m.createdAt),
    tokens: m.tokens,
    chars: m.text.length,
    ...(m.toolCallIds.length ? { tool_calls: m.toolCallIds } : {}),
    ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
    ...(m.redacted ? { redacted: true } : {}),
    in_context: await store.inFrontier(m.conversationId, { kind: "message", messageId: m.id }),
    covered_by: chain,
    preview: m.text.length > 400 ? `${m.text.slice(0, 400)}…` : m.text,
  });
}
