import { contentText, toolError } from "@context-engine/core";
import type { z } from "zod";
import { queryKey } from "../search/cursor.js";
import type { LcmStoreDriver, StoredMessage } from "../store/types.js";
import { crossConversationDisabled, scopeCheck, type LcmToolContext } from "./context.js";
import { iso, messageRef, parseRef } from "./refs.js";
import type { ExpandArgsSchema } from "./schemas.js";

interface ExpandCursor {
  k: string;
  /** Index into the ordered message list. */
  i: number;
  /** Character offset inside message i (a message larger than a page is read in parts). */
  c: number;
}

function render(m: StoredMessage): Record<string, unknown> {
  const msg = m.message as Record<string, unknown>;
  const out: Record<string, unknown> = { ref: messageRef(m.id), seq: m.seq, role: m.role, at: iso(m.createdAt) };
  const content = msg.content;
  if (typeof content === "string") out.content = content;
  else if (Array.isArray(content)) {
    const text = contentText(content);
    const others = content.filter((p) => !(p && typeof p === "object" && (p as { type?: unknown }).type === "text"));
    out.content = text;
    if (others.length) out.attachments = others.map((p) => (p as { type?: string }).type ?? "part");
  }
  if (m.toolCallIds.length) {
    out.tool_calls = (msg.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>).map((c) => ({
      id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
    }));
  }
  if (m.toolCallId) out.tool_call_id = m.toolCallId;
  if (m.redacted) out.redacted = true;
  return out;
}

export async function runExpand(store: LcmStoreDriver, args: z.infer<typeof ExpandArgsSchema>, ctx: LcmToolContext): Promise<string> {
  if (args.all_conversations && ctx.allowCrossConversation !== true) return toolError(crossConversationDisabled("lcm_expand"));
  const ref = parseRef(args.id);
  if (!ref) return toolError(`lcm_expand: "${args.id}" is not a summary id (sum_ + 16 hex) or a message ref (msg_123)`);

  let ids: number[];
  let header: Record<string, unknown>;
  if (ref.kind === "summary") {
    const s = await store.getSummary(ref.id);
    if (!s) return toolError(`lcm_expand: no summary ${ref.id}`);
    const scope = scopeCheck(ctx, s.conversationId, args.all_conversations, `summary ${ref.id}`);
    if (scope === "hidden") return toolError(`lcm_expand: no summary ${ref.id}`);
    if (scope !== "ok") return toolError(`lcm_expand: ${scope}`);
    ids = await store.descendantMessageIds(s.id);
    header = { id: s.id, kind: s.kind, depth: s.depth, time_span: { from: iso(s.earliestAt), to: iso(s.latestAt) } };
  } else {
    const m = await store.getMessage(ref.id);
    if (!m) return toolError(`lcm_expand: no message ${messageRef(ref.id)}`);
    const scope = scopeCheck(ctx, m.conversationId, args.all_conversations, `message ${messageRef(ref.id)}`);
    if (scope === "hidden") return toolError(`lcm_expand: no message ${messageRef(ref.id)}`);
    if (scope !== "ok") return toolError(`lcm_expand: ${scope}`);
    const around = await store.getMessages(m.conversationId, { fromSeq: Math.max(0, m.seq - args.around), toSeq: m.seq + args.around });
    ids = around.map((x) => x.id);
    header = { id: messageRef(m.id), kind: "message", seq: m.seq };
  }

  const key = queryKey(["expand", args.id, args.around]);
  let start: ExpandCursor = { k: key, i: 0, c: 0 };
  if (args.cursor) {
    try {
      const c = JSON.parse(Buffer.from(args.cursor, "base64url").toString("utf8")) as ExpandCursor;
      if (c.k !== key || !Number.isInteger(c.i) || !Number.isInteger(c.c) || c.i < 0 || c.c < 0) throw new Error("mismatch");
      start = c;
    } catch {
      return toolError("lcm_expand: the cursor does not belong to this id; call again with the same id and the nextCursor you were given");
    }
  }

  const budget = args.max_tokens;
  const out: Array<Record<string, unknown>> = [];
  let used = 0;
  let next: ExpandCursor | null = null;
  for (let i = start.i; i < ids.length; i++) {
    const m = await store.getMessage(ids[i]!);
    if (!m) continue;
    const offset = i === start.i ? start.c : 0;
    const remaining = budget - used;
    if (offset === 0 && m.tokens <= remaining) {
      out.push(render(m));
      used += m.tokens;
      continue;
    }
    if (out.length > 0 && offset === 0) {
      next = { k: key, i, c: 0 };
      break;
    }
    // Read a large message in parts, as flat text (content then tool calls).
    const text = m.text;
    const charsPerToken = text.length / Math.max(1, m.tokens);
    const take = Math.max(200, Math.floor(remaining * charsPerToken));
    const end = Math.min(text.length, offset + take);
    out.push({
      ref: messageRef(m.id),
      seq: m.seq,
      role: m.role,
      at: iso(m.createdAt),
      ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
      part: { from: offset, to: end, of: text.length },
      content: text.slice(offset, end),
    });
    used += Math.ceil((end - offset) / Math.max(0.5, charsPerToken));
    if (end < text.length) {
      next = { k: key, i, c: end };
      break;
    }
  }
  return JSON.stringify({
    ...header,
    total_messages: ids.length,
    returned: out.length,
    tokens: used,
    messages: out,
    nextCursor: next ? Buffer.from(JSON.stringify(next)).toString("base64url") : null,
  });
}
