import { contentText, defaultTokenCounter, toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { renderFitTable, type FitCell } from "../format/fit-table.js";
import { formatInt } from "../format/numbers.js";
import type { ChatContext } from "./commands.js";
import { preview, share } from "./message-text.js";

type Part = "system" | "summaries" | "user" | "assistant" | "tool calls" | "tool results";

function partOf(m: Message, ctx: ChatContext): Part {
  if (m.role === "system" || m.role === "developer") return "system";
  if (ctx.compactions.isSummary(m)) return "summaries";
  if (m.role === "tool") return "tool results";
  if (m.role === "assistant") return toolCallsOf(m).length > 0 && !contentText(m.content) ? "tool calls" : "assistant";
  return "user";
}

const cells = (row: readonly string[]): FitCell[] => row.map((text) => ({ text }));

/** `/context`: the messages the model sees next, one line each (text cut to the terminal), and tokens by part. */
export function contextView(ctx: ChatContext): string {
  // Piped output has no edge; tables still keep a readable width.
  const width = Math.min(ctx.width(), 120);
  const messages = ctx.session.messages;
  const rows = messages.map((m, i) => {
    const part = partOf(m, ctx);
    return [String(i + 1), part === "summaries" ? "summary" : m.role, formatInt(defaultTokenCounter.countMessage(m)), preview(m, 200)];
  });
  const shownRows = rows.length > 40 ? [...rows.slice(0, 5), ["…", "", "", `${rows.length - 35} more`], ...rows.slice(-30)] : rows;
  const { table, total } = partsTable(messages, ctx, width);
  const list = renderFitTable(
    [{ header: "#", align: "right" }, { header: "role" }, { header: "tokens", align: "right" }, { header: "text", flex: "cut" }],
    shownRows.map(cells),
    width,
  ).trimEnd();
  const out = [
    `What the model sees next: these ${messages.length} messages, then your message.`,
    list,
    "",
    "Tokens by part (estimated):",
    table,
    `~${formatInt(total)} of ${formatInt(ctx.session.contextLength)} tokens in the window (${share(total, ctx.session.contextLength)}).`,
  ];
  const last = ctx.lastRequest();
  if (last && last.selection === "applied") {
    // The engine picks what each request holds; show what it picked last time.
    out.push(
      "",
      `The engine selects the context of each request; the last one held ${last.messages.length} messages (~${formatInt(last.estimatedTokens)} tokens):`,
      partsTable(last.messages, ctx, width).table,
    );
  }
  return out.join("\n");
}

function partsTable(messages: readonly Message[], ctx: ChatContext, width: number): { table: string; total: number } {
  const byPart = new Map<Part, { messages: number; tokens: number }>();
  for (const m of messages) {
    const part = partOf(m, ctx);
    const entry = byPart.get(part) ?? { messages: 0, tokens: 0 };
    entry.messages++;
    entry.tokens += defaultTokenCounter.countMessage(m);
    byPart.set(part, entry);
  }
  const toolsTokens = defaultTokenCounter.countText(JSON.stringify(ctx.session.tools));
  const total = [...byPart.values()].reduce((a, b) => a + b.tokens, 0) + toolsTokens;
  const rows = [...byPart.entries()].map(([part, v]) => [part, String(v.messages), formatInt(v.tokens), share(v.tokens, total)]);
  if (ctx.session.tools.length > 0) rows.push([`tool definitions (${ctx.session.tools.length})`, "–", formatInt(toolsTokens), share(toolsTokens, total)]);
  rows.push(["total", String(messages.length), formatInt(total), "100%"]);
  const table = renderFitTable(
    [{ header: "part", flex: "wrap" }, { header: "messages", align: "right" }, { header: "tokens", align: "right" }, { header: "share", align: "right" }],
    rows.map(cells),
    width,
  ).trimEnd();
  return { table, total };
}
