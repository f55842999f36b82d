import { contentText, defaultTokenCounter, toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import type { Session } from "@context-engine/host";
import { formatDuration, formatInt } from "../format/numbers.js";
import { renderTable } from "../format/table.js";
import type { CompactionLog } from "./compactions.js";

export interface ChatContext {
  session: Session;
  engine: { name: string; source: string; version: string | null };
  endpoint: { baseURL: string | undefined; requestTimeoutMs: number; contextLengthKnown: () => boolean; contextLengthSource: () => string; streaming: () => string };
  transcriptFile: string | null;
  compactions: CompactionLog;
  /** The last request as sent (after the engine's selection), when one was made. */
  lastRequest: () => { messages: readonly Message[]; estimatedTokens: number; selection: string } | null;
}

/** Commands the chat adds to the host's (or renders better); null when `line` is not one of them. */
export async function runChatCommand(line: string, ctx: ChatContext): Promise<string | null> {
  const [name, ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(" ");
  switch (name?.toLowerCase()) {
    case "/status":
      return statusTable(ctx);
    case "/engine":
      return engineTable(ctx);
    case "/context":
      return contextView(ctx);
    case "/compactions":
      return compactionsView(ctx, arg);
    case "/expand":
      return expand(ctx, arg);
    default:
      return null;
  }
}

export const CHAT_COMMAND_HELP: ReadonlyArray<[string, string]> = [
  ["/context", "what the model will see next: messages, summaries, tokens by part"],
  ["/compactions [n]", "what each compaction removed and the summary that replaced it"],
  ["/expand <id>", "get an original back from the lossless engine (lcm_expand)"],
  ["/multi", "type a multi-line message; end it with a line holding only /end"],
  ["/exit, /quit", "leave (also Ctrl-D; Ctrl-C twice at the prompt)"],
];

const kv = (rows: Array<[string, string]>) => renderTable([{ header: "" }, { header: "" }], rows).split("\n").slice(2).join("\n").trimEnd();

function statusTable(ctx: ChatContext): string {
  const s = ctx.session.status();
  const e = s.engineStatus;
  const window = `${formatInt(s.contextLength)} tokens${ctx.endpoint.contextLengthKnown() ? "" : " (a guess: the model is not in the built-in table; set model.context_length)"}`;
  const rows: Array<[string, string]> = [
    ["Session", s.sessionId],
    ["Model", s.model],
    ["Context window", window],
    ["Window from", ctx.endpoint.contextLengthSource()],
    ["Endpoint", ctx.endpoint.baseURL ?? "api.openai.com"],
    ["Request timeout", `${Math.round(ctx.endpoint.requestTimeoutMs / 1000)} s`],
    ["Streaming", ctx.endpoint.streaming()],
    ["Engine", s.engine],
    ["Messages", String(s.messageCount)],
    ["Estimated tokens", `~${formatInt(s.estimatedTokens)} (${share(s.estimatedTokens, s.contextLength)} of the window)`],
  ];
  if (e) {
    rows.push(["Last prompt", s.lastPromptTokens === -1 ? "– (compacted since)" : `${formatInt(e.lastPromptTokens)} tokens (${e.usagePercent.toFixed(1)}%)`]);
    rows.push(["Threshold", `${formatInt(e.thresholdTokens)} tokens`]);
  }
  rows.push(["Turns", String(s.turns)], ["Compactions", String(s.compactions)]);
  if (ctx.transcriptFile) rows.push(["Transcript", ctx.transcriptFile]);
  return kv(rows);
}

function engineTable(ctx: ChatContext): string {
  const s = ctx.session.status();
  const rows: Array<[string, string]> = [
    ["Context engine", `${s.engine}${ctx.engine.version ? ` ${ctx.engine.version}` : ""} (${ctx.engine.source})`],
    ["Tools", s.engineTools.join(", ") || "none"],
  ];
  for (const [key, value] of Object.entries(s.engineStatus ?? {})) {
    if (key === "name") continue;
    // One level of nesting becomes its own rows (`lcm › database › path`), deeper levels stay compact.
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [sub, inner] of Object.entries(value as Record<string, unknown>)) {
        if (inner && typeof inner === "object" && !Array.isArray(inner)) {
          for (const [leaf, v] of Object.entries(inner as Record<string, unknown>)) rows.push([label(key, sub, leaf), shownValue(v, leaf)]);
        } else rows.push([label(key, sub), shownValue(inner, sub)]);
      }
    } else rows.push([label(key), shownValue(value, key)]);
  }
  return kv(rows);
}

/** `thresholdTokens` → `threshold tokens`, `last_compaction_at` → `last compaction at`; nested keys joined with " › ". */
export function label(...keys: string[]): string {
  const words = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase().trim();
  const text = keys.map(words).join(" › ");
  return text[0] ? text[0].toUpperCase() + text.slice(1) : text;
}

/** Epoch milliseconds (2001–2286) under a key that names a time: shown as a date. */
function isTimestamp(key: string, value: number): boolean {
  return /(At|Time|Ms?Epoch|_at|_time|^at|^time|date)$/i.test(key) && Number.isInteger(value) && value > 1e12 && value < 1e13;
}

function shownValue(value: unknown, key = ""): string {
  if (typeof value === "number" && isTimestamp(key, value)) return new Date(value).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  if (typeof value === "number") return Number.isInteger(value) ? formatInt(value) : value.toFixed(2);
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "–";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((v) => shownValue(v)).join(", ");
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.map(([k, v]) => `${label(k).toLowerCase()}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : shownValue(v, k)}`).join(" · ");
}

type Part = "system" | "summaries" | "user" | "assistant" | "tool calls" | "tool results";

function partOf(m: Message, ctx: ChatContext): Part {
  if (m.role === "system" || m.role === "developer") return "system";
  if (ctx.compactions.isSummary(m)) return "summaries";
  if (m.role === "tool") return "tool results";
  if (m.role === "assistant") return toolCallsOf(m).length > 0 && !contentText(m.content) ? "tool calls" : "assistant";
  return "user";
}

function contextView(ctx: ChatContext): string {
  const messages = ctx.session.messages;
  const rows = messages.map((m, i) => {
    const part = partOf(m, ctx);
    return [String(i + 1), part === "summaries" ? "summary" : m.role, formatInt(defaultTokenCounter.countMessage(m)), preview(m, 70)];
  });
  const shownRows = rows.length > 40 ? [...rows.slice(0, 5), ["…", "", "", `${rows.length - 35} more`], ...rows.slice(-30)] : rows;
  const { table, total } = partsTable(messages, ctx);
  const out = [
    `What the model sees next: these ${messages.length} messages, then your message.`,
    renderTable([{ header: "#", align: "right" }, { header: "role" }, { header: "tokens", align: "right" }, { header: "text" }], shownRows).trimEnd(),
    "",
    "Tokens by part (estimated):",
    table,
    `~${formatInt(total)} of ${formatInt(ctx.session.contextLength)} tokens in the window (${share(total, ctx.session.contextLength)}).`,
  ];
  const last = ctx.lastRequest();
  if (last && last.selection === "applied") {
    // The engine picks what each request holds; show what it picked last time.
    out.push("", `The engine selects the context of each request; the last one held ${last.messages.length} messages (~${formatInt(last.estimatedTokens)} tokens):`, partsTable(last.messages, ctx).table);
  }
  return out.join("\n");
}

function partsTable(messages: readonly Message[], ctx: ChatContext): { table: string; total: number } {
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
  const table = renderTable([{ header: "part" }, { header: "messages", align: "right" }, { header: "tokens", align: "right" }, { header: "share", align: "right" }], rows).trimEnd();
  return { table, total };
}

function compactionsView(ctx: ChatContext, arg: string): string {
  const records = ctx.compactions.records;
  if (records.length === 0) return "No compaction yet in this session. /compress runs one now.";
  if (!arg) {
    const rows = records.map((r) => [
      String(r.number),
      r.trigger,
      `~${formatInt(r.tokensBefore)} → ~${formatInt(r.tokensAfter)}`,
      `${r.messagesBefore} → ${r.messagesAfter}`,
      String(r.removed.length),
      formatDuration(r.durationMs),
      r.added[0] ? preview(r.added[0], 50) : "–",
    ]);
    return `${renderTable(
      [{ header: "#", align: "right" }, { header: "trigger" }, { header: "tokens" }, { header: "messages" }, { header: "removed", align: "right" }, { header: "took" }, { header: "summary" }],
      rows,
    ).trimEnd()}\n/compactions <n> shows what one removed and its summary in full.`;
  }
  const n = Number(arg);
  const r = records.find((x) => x.number === n);
  if (!r) return `/compactions: no compaction #${arg}; there are ${records.length} (1–${records.length}).`;
  const lines = [
    `Compaction #${r.number} (${r.trigger}, ${r.at.toISOString()}): ~${formatInt(r.tokensBefore)} → ~${formatInt(r.tokensAfter)} tokens, ${r.messagesBefore} → ${r.messagesAfter} messages`,
    "",
    `Removed from the context (${r.removed.length}):`,
    ...r.removed.map((m) => `  - ${m.role}: ${preview(m, 100)}`),
    "",
    `Put in its place (${r.added.length}):`,
    ...r.added.map((m) => indent(contentText(m.content) || JSON.stringify(m.content), "  | ")),
  ];
  if (r.summaryIds.length > 0) lines.push("", `Get the originals back: ${r.summaryIds.map((id) => `/expand ${id}`).join("  ")}`);
  return lines.join("\n");
}

async function expand(ctx: ChatContext, arg: string): Promise<string> {
  const [id, cursor] = arg.trim().split(/\s+/);
  if (!id) return "usage: /expand <id>   (a summary id such as sum_… from /compactions, or a message ref msg_…)";
  const { session } = ctx;
  if (!session.engineTools.includes("lcm_expand")) {
    return `The ${session.status().engine} engine keeps no originals to expand (no lcm_expand tool). /compactions <n> shows what a compaction removed in this session.`;
  }
  const raw = await session.engine.handleToolCall("lcm_expand", { id, ...(cursor ? { cursor } : {}) }, { messages: [...session.messages], sessionId: session.id });
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    return String(raw);
  }
  const body = parsed as { error?: unknown; messages?: Array<{ ref?: string; role?: string; content?: string; at?: string }>; total_messages?: number; nextCursor?: string | null };
  if (body.error) return `✖ ${typeof body.error === "string" ? body.error : JSON.stringify(body.error)}`;
  if (Array.isArray(body.messages)) {
    const out = body.messages.map((m) => `${m.ref ?? ""} ${m.role ?? ""}${m.at ? ` · ${m.at}` : ""}\n${indent(m.content ?? "", "  | ")}`);
    if (body.nextCursor) out.push(`(${body.messages.length} of ${body.total_messages ?? "?"} shown; next page: /expand ${id} ${body.nextCursor})`);
    return out.join("\n");
  }
  return JSON.stringify(parsed, null, 2);
}

function preview(m: Message, max: number): string {
  const calls = toolCallsOf(m);
  let text = contentText(m.content);
  if (!text && calls.length > 0) text = calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(", ");
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
}

function share(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : "–";
}
