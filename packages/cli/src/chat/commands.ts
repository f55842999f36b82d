import type { Message } from "@context-engine/core";
import type { Session } from "@context-engine/host";
import { fitLines, renderKeyValues } from "../format/fit-screen.js";
import { formatInt } from "../format/numbers.js";
import type { CompactionLog } from "./compactions.js";
import { compactionsView } from "./compactions-view.js";
import { contextView } from "./context-view.js";
import { pinCommand, pinsView, restoreCommand, unpinCommand } from "./ledger-commands.js";
import { indent, share } from "./message-text.js";

export interface ChatContext {
  session: Session;
  engine: { name: string; source: string; version: string | null };
  endpoint: { baseURL: string | undefined; requestTimeoutMs: number; contextLengthKnown: () => boolean; contextLengthSource: () => string; streaming: () => string };
  transcriptFile: string | null;
  compactions: CompactionLog;
  /** The last request as sent (after the engine's selection), when one was made. */
  lastRequest: () => { messages: readonly Message[]; estimatedTokens: number; selection: string } | null;
  /** The terminal's width now (it may have been resized since the last command). */
  width: () => number;
}

/** Commands the chat adds to the host's (or renders better); null when `line` is not one of them. */
export async function runChatCommand(line: string, ctx: ChatContext): Promise<string | null> {
  const shown = await chatCommandOutput(line, ctx);
  // Whatever a screen holds, no line runs past the terminal's edge.
  return shown === null ? null : fitLines(shown, ctx.width());
}

async function chatCommandOutput(line: string, ctx: ChatContext): Promise<string | null> {
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
    case "/undo":
      return restoreCommand(ctx, "/undo", arg);
    case "/restore":
      return restoreCommand(ctx, "/restore", arg);
    case "/pin":
      return pinCommand(ctx, rest.length ? line.trim().slice(name!.length).trim() : "");
    case "/unpin":
      return unpinCommand(ctx, arg);
    case "/pins":
      return pinsView(ctx);
    default:
      return null;
  }
}

export const CHAT_COMMAND_HELP: ReadonlyArray<[string, string]> = [
  ["/context", "what the model will see next: messages, summaries, tokens by part"],
  ["/compactions [id]", "the compaction ledger: what each compaction removed and what replaced it"],
  ["/undo", "put back what the last compaction removed (when it fits the window)"],
  ["/restore <id>", "put back what compaction <id> removed; later ones stay where they do not overlap"],
  ["/pin <text|#n>", "keep text (or message n of /context) verbatim in every request"],
  ["/unpin <id>, /pins", "drop a pin; list the pins with their token cost"],
  ["/expand <id>", "get an original back from the lossless engine (lcm_expand)"],
  ["/multi", "type a multi-line message; end it with a line holding only /end"],
  ["/exit, /quit", "leave (also Ctrl-D; Ctrl-C twice at the prompt)"],
];


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
  rows.push(["Turns", String(s.turns)], ["Compactions", compactionCount(s.compactions, ctx)]);
  if (ctx.transcriptFile) rows.push(["Transcript", ctx.transcriptFile]);
  return renderKeyValues(rows, ctx.width());
}

function engineTable(ctx: ChatContext): string {
  const s = ctx.session.status();
  const rows: Array<[string, string]> = [
    ["Context engine", `${s.engine}${ctx.engine.version ? ` ${ctx.engine.version}` : ""} (${ctx.engine.source})`],
    ["Tools", s.engineTools.join(", ") || "none"],
  ];
  for (const [key, value] of Object.entries(s.engineStatus ?? {})) {
    if (key === "name") continue;
    if (!isRecord(value)) {
      rows.push([label(key), shownValue(value, key)]);
      continue;
    }
    // A nested record becomes a heading with its fields indented under it (`Lcm`, `Lcm › database`);
    // deeper levels read down as one `field: value` a line.
    rows.push([label(key), ""]);
    const direct = Object.entries(value).filter(([, v]) => !isRecord(v));
    for (const [sub, inner] of direct) rows.push([`  ${label(sub)}`, shownValue(inner, sub)]);
    for (const [sub, inner] of Object.entries(value).filter(([, v]) => isRecord(v))) {
      rows.push([label(key, sub), ""]);
      for (const [leaf, v] of Object.entries(inner as Record<string, unknown>)) rows.push([`  ${label(leaf)}`, shownValue(v, leaf)]);
    }
  }
  return renderKeyValues(rows, ctx.width());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `thresholdTokens` → `threshold tokens`, `last_compaction_at` → `last compaction at`; nested keys joined with " › ". */
export function label(...keys: string[]): string {
  const words = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase().trim();
  const text = keys.map(words).join(" › ");
  return text[0] ? text[0].toUpperCase() + text.slice(1) : text;
}

/** Epoch milliseconds (2001–2286) under a key that names a time: shown as a date. */
function isTimestamp(key: string, value: number): boolean {
  return isTimeKey(key) && Number.isInteger(value) && value > 1e12 && value < 1e13;
}

function isTimeKey(key: string): boolean {
  return /(At|Time|Ms?Epoch|_at|_time|^at|^time|date)$/i.test(key);
}

function shownValue(value: unknown, key = ""): string {
  if (typeof value === "number" && isTimestamp(key, value)) return new Date(value).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  if (typeof value === "number") return Number.isInteger(value) ? formatInt(value) : value.toFixed(2);
  if (typeof value === "string" && isTimeKey(key) && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) && !Number.isNaN(Date.parse(value))) {
    return new Date(value).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  }
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "–";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((v) => shownValue(v)).join(", ");
  const entries = Object.entries(value as Record<string, unknown>);
  // One entry a line: a record such as the last compaction reads down, not across the screen.
  return entries.map(([k, v]) => `${label(k).toLowerCase()}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : shownValue(v, k)}`).join("\n");
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

/** This chat's compactions: the session's, plus those the transcript recorded before a resume. */
function compactionCount(sessionCount: number, ctx: ChatContext): string {
  const restored = ctx.compactions.records.filter((r) => r.restored).length;
  return restored ? `${restored + sessionCount} (${restored} before this chat was resumed)` : String(sessionCount);
}
