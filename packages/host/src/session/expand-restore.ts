import { checkConversation, contentText } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import { pinsBlock, placePins } from "../ledger/pins-block.js";
import { callHook } from "./engine-calls.js";
import { commitRestore, type LedgerView, type RestoreResult } from "./ledger-ops.js";

/** The expand tool a lossless engine publishes (LCM): `{ id, cursor? }` → `{ messages, nextCursor }`. */
export const EXPAND_TOOL = "lcm_expand";
/** Pages read at most for one summary (each page is bounded by the engine's own token budget). */
const MAX_PAGES = 50;

interface ExpandedItem {
  ref?: string;
  role?: string;
  content?: string;
  part?: unknown;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  tool_call_id?: string;
}

/**
 * Restore for an engine whose originals live in its own store: the summary
 * `summaryId` is expanded in place through the engine's published expand
 * tool (no private API), when the ledger does not hold that compaction.
 */
export async function expandSummaryInPlace(view: LedgerView, summaryId: string, engineTools: readonly string[]): Promise<RestoreResult | null> {
  if (!engineTools.includes(EXPAND_TOOL)) return null;
  const at = view.messages.findIndex((m) => contentText(m.content).includes(`id="${summaryId}"`));
  if (at < 0) return null;
  const originals = await readOriginals(view, summaryId);
  if (typeof originals === "string") return { status: "invalid", reason: `${EXPAND_TOOL} could not expand ${summaryId}: ${originals}` };
  const before = view.messages;
  const after = placePins([...before.slice(0, at), ...originals, ...before.slice(at + 1)], pinsBlock(view.pins)).messages;
  const problem = checkConversation(after, { allowTrailingInFlightCall: false })[0];
  if (problem) return { status: "invalid", reason: `the expanded list would be invalid at message ${problem.index}: ${problem.message}` };
  const { counter } = view.runtime;
  const tokensNeeded = counter.countMessages(after);
  if (view.contextLength > 0 && tokensNeeded > view.inputBudget) {
    return { status: "does_not_fit", compactions: [summaryId], messagesBack: originals.length, tokensNeeded, budget: view.inputBudget, overBy: tokensNeeded - view.inputBudget };
  }
  return commitRestore(view, before, after, [summaryId], originals.length, tokensNeeded);
}

/** Every page of the expansion as messages; a string says why it failed. */
async function readOriginals(view: LedgerView, summaryId: string): Promise<Message[] | string> {
  const items: ExpandedItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const args: Record<string, unknown> = { id: summaryId, ...(cursor ? { cursor } : {}) };
    const raw = await callHook(view.runtime, view.id, null, "handleToolCall", null, () =>
      view.runtime.engine.handleToolCall(EXPAND_TOOL, args, { messages: cloneMessages(view.messages), sessionId: view.id }),
    );
    let body: { error?: unknown; messages?: ExpandedItem[]; nextCursor?: string | null };
    try {
      body = JSON.parse(String(raw)) as typeof body;
    } catch {
      return "its answer is not JSON";
    }
    if (body.error) return typeof body.error === "string" ? body.error : JSON.stringify(body.error);
    if (!Array.isArray(body.messages)) return "its answer has no messages";
    items.push(...body.messages);
    cursor = body.nextCursor ?? null;
    if (!cursor) return toMessages(items);
  }
  return `more than ${MAX_PAGES} pages`;
}

/** Expanded items back to OpenAI messages; a message read in parts is joined (as text). */
function toMessages(items: readonly ExpandedItem[]): Message[] {
  const out: Message[] = [];
  let lastRef: string | undefined;
  for (const item of items) {
    const text = item.content ?? "";
    if (item.part && item.ref && item.ref === lastRef) {
      const last = out.at(-1)!;
      (last as { content: unknown }).content = `${contentText(last.content)}${text}`;
      continue;
    }
    lastRef = item.ref;
    if (item.role === "tool") out.push({ role: "tool", tool_call_id: item.tool_call_id ?? "", content: text });
    else if (item.role === "assistant" && item.tool_calls?.length) {
      out.push({ role: "assistant", content: text || null, tool_calls: item.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) });
    } else out.push({ role: item.role === "assistant" ? "assistant" : item.role === "system" ? "system" : "user", content: text });
  }
  return out;
}
