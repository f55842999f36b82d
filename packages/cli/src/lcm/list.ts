import { contentText } from "@context-engine/core";
import { InputError, UsageError } from "../errors.js";
import { renderFitTable, terminalWidth } from "../format/fit-table.js";
import { formatInt } from "../format/numbers.js";
import type { CliIO } from "../io.js";
import type { OpenedStore } from "../commands/lcm.js";
import type { StoreTarget } from "./store-target.js";

interface ConversationLine {
  id: string;
  title: string;
  messages: number;
  tokens: number;
  bytes: number;
  lastUsed: string;
}

/** The first user request of a conversation, on one line (its "title"). */
async function firstRequest(store: OpenedStore, conversationId: number): Promise<string> {
  const head = await store.getMessages(conversationId, { fromSeq: 0, limit: 20 });
  const user = head.find((m) => m.role === "user");
  const text = user ? contentText((user.message as { content?: unknown }).content as never).replace(/\s+/g, " ").trim() : "";
  return text || "(no request yet)";
}

/** Every stored conversation, most recently used first. */
export async function conversationLines(store: OpenedStore): Promise<ConversationLine[]> {
  const conversations = await store.listConversations();
  const usage = new Map((await store.conversationUsage()).map((u) => [u.id, u.textBytes]));
  const lines: ConversationLine[] = [];
  for (const c of [...conversations].sort((a, b) => b.updatedAt - a.updatedAt)) {
    lines.push({
      id: c.sessionId,
      title: await firstRequest(store, c.id),
      messages: c.messageCount,
      tokens: c.messageTokens,
      bytes: usage.get(c.id) ?? 0,
      lastUsed: new Date(c.updatedAt).toISOString().replace("T", " ").slice(0, 16),
    });
  }
  return lines;
}

/** `lcm list`: id, first request, size and last use of each stored conversation. */
export async function listConversations(store: OpenedStore, target: StoreTarget, io: CliIO, options: { json: boolean }): Promise<number> {
  const lines = await conversationLines(store);
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ store: target.shown, conversations: lines }, null, 2)}\n`);
    return 0;
  }
  if (lines.length === 0) {
    io.stdout.write(`No conversations stored in ${target.shown}.\n`);
    return 0;
  }
  const width = terminalWidth((io.stdout as { columns?: number }).columns, io.env);
  const rows = lines.map((l) => [l.id, l.lastUsed, formatInt(l.messages), formatSize(l.bytes), l.title].map((text) => ({ text })));
  const columns = [{ header: "id" }, { header: "last used (UTC)" }, { header: "messages" }, { header: "size" }, { header: "first request", flex: "cut" as const }];
  io.stdout.write(`${lines.length} conversation(s) in ${target.shown}\n`);
  io.stdout.write(renderFitTable(columns, rows, width));
  io.stdout.write("Export one with: context-engine lcm export --session <id or unique prefix>\n");
  return 0;
}

/** The session id a user means: an exact id, else the one id starting with `wanted`. */
export async function pickConversation(store: OpenedStore, wanted: string, target: StoreTarget): Promise<string> {
  const conversations = await store.listConversations();
  if (conversations.some((c) => c.sessionId === wanted)) return wanted;
  const matches = conversations.filter((c) => c.sessionId.startsWith(wanted));
  if (matches.length === 1) return matches[0]!.sessionId;
  if (matches.length > 1) {
    throw new UsageError(`lcm: ${JSON.stringify(wanted)} matches ${matches.length} conversations`, {
      hints: [`Candidates: ${matches.slice(0, 10).map((c) => c.sessionId).join(", ")}${matches.length > 10 ? ", …" : ""}`, "Give more of the id."],
    });
  }
  throw new InputError(`lcm: no conversation ${JSON.stringify(wanted)} in ${target.shown}`, { hints: ["'context-engine lcm list' shows the stored conversations."] });
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
