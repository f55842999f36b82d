import { PinsOverCapError } from "./errors.js";
import type { Session } from "./session/session.js";
import type { ManualCompactionResult, SessionStatus } from "./session/types.js";

export type SlashCommand =
  | { name: "compress"; focus: string | null }
  | { name: "new" }
  | { name: "reset" }
  | { name: "model"; model: string; contextLength: number | null }
  | { name: "status" }
  | { name: "engine" }
  | { name: "help" }
  | { name: "invalid"; command: string; error: string }
  | { name: "unknown"; command: string };

export const SLASH_COMMAND_HELP: Readonly<Record<string, string>> = {
  "/compress [focus]": "compact the conversation now, keeping what relates to <focus> first",
  "/new": "start a new conversation (the engine's session ends)",
  "/reset": "same as /new",
  "/model <name> [context_length]": "switch the model for the next requests",
  "/status": "token usage, threshold and compactions",
  "/engine": "the active context engine and its tools",
  "/help": "this list",
};

/**
 * Parse a line typed by the user. Returns null when it is not a slash
 * command (plain text for `send`). `//text` escapes a leading slash.
 */
export function parseSlashCommand(line: string): SlashCommand | null {
  const text = line.trim();
  if (!text.startsWith("/") || text.startsWith("//")) return null;
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return null;
  const command = match[1]!.toLowerCase();
  const rest = (match[2] ?? "").trim();
  switch (command) {
    case "compress":
    case "compact":
      return { name: "compress", focus: rest || null };
    case "new":
      return { name: "new" };
    case "reset":
      return { name: "reset" };
    case "status":
      return { name: "status" };
    case "engine":
      return { name: "engine" };
    case "help":
    case "?":
      return { name: "help" };
    case "model": {
      const [model, ctx, ...extra] = rest.split(/\s+/).filter(Boolean);
      if (!model) return { name: "invalid", command: "/model", error: "usage: /model <name> [context_length]" };
      if (extra.length > 0) return { name: "invalid", command: "/model", error: "usage: /model <name> [context_length]" };
      let contextLength: number | null = null;
      if (ctx !== undefined) {
        const n = Number(ctx.replace(/_/g, "").replace(/k$/i, "000"));
        if (!Number.isInteger(n) || n <= 0) {
          return { name: "invalid", command: "/model", error: `context_length must be a positive integer, got ${JSON.stringify(ctx)}` };
        }
        contextLength = n;
      }
      return { name: "model", model, contextLength };
    }
    default:
      return { name: "unknown", command: `/${command}` };
  }
}

/** Undo the `//` escape of a line that is not a command. */
export function unescapeUserLine(line: string): string {
  const text = line.trimStart();
  return text.startsWith("//") ? text.slice(1) : line;
}

export interface SlashCommandOutcome {
  command: SlashCommand;
  /** A line (or a few) to show the user. */
  output: string;
  /** Set for /compress. */
  compaction?: ManualCompactionResult;
  /** Set for /status. */
  status?: SessionStatus;
}

/**
 * Run a parsed command on a session. `resolveContextLength` gives the window
 * of a model named without one (the CLI passes its model table).
 */
export async function runSlashCommand(
  session: Session,
  command: SlashCommand,
  options: { resolveContextLength?: (model: string) => number } = {},
): Promise<SlashCommandOutcome> {
  switch (command.name) {
    case "compress": {
      const before = session.messages.length;
      const result = await session.compress(command.focus);
      return { command, output: describeCompaction(result, before, session.messages.length), compaction: result };
    }
    case "new":
    case "reset": {
      const old = session.id;
      await session.reset();
      return { command, output: `Started a new conversation (session ${session.id}; ended ${old}).` };
    }
    case "model": {
      const ctx = command.contextLength ?? options.resolveContextLength?.(command.model) ?? session.contextLength;
      try {
        await session.switchModel(command.model, ctx);
      } catch (error) {
        if (error instanceof PinsOverCapError) return { command, output: `Refused: ${error.message}.` };
        throw error;
      }
      return { command, output: `Model: ${session.model} (context window ${session.contextLength.toLocaleString("en-US")} tokens).` };
    }
    case "status": {
      const status = session.status();
      return { command, output: formatStatus(status), status };
    }
    case "engine": {
      const s = session.status();
      const tools = s.engineTools.length ? s.engineTools.join(", ") : "none";
      // An engine may say how its search retrieves (`getStatus().retrieval`, e.g. LCM: words, or words and vectors).
      const retrieval = typeof s.engineStatus?.retrieval === "string" ? `; retrieval: ${s.engineStatus.retrieval}` : "";
      return { command, output: `Context engine: ${s.engine} (tools: ${tools}${retrieval})` };
    }
    case "help":
      return {
        command,
        output: Object.entries(SLASH_COMMAND_HELP)
          .map(([k, v]) => `${k.padEnd(32)} ${v}`)
          .join("\n"),
      };
    case "invalid":
      return { command, output: `${command.command}: ${command.error}` };
    case "unknown":
      return { command, output: `Unknown command ${command.command}. Type /help for the list.` };
  }
}

function describeCompaction(result: ManualCompactionResult, before: number, after: number): string {
  switch (result.status) {
    case "committed":
      return `Compacted: ${before} → ${after} messages, ~${result.tokensBefore.toLocaleString("en-US")} → ~${result.tokensAfter.toLocaleString("en-US")} tokens (${Math.round(result.durationMs)} ms).`;
    case "unchanged":
      return "Nothing was compacted: the engine left the conversation as it was.";
    case "nothing_to_compress":
      return "Nothing to compress yet.";
    case "timed_out":
      return "Compaction timed out; no messages were dropped.";
    case "failed":
      return `Compaction failed (${result.error}); no messages were dropped.`;
    case "aborted":
      return "Compaction was cancelled; no messages were dropped.";
    case "busy":
      return "A compaction is already running for this session.";
  }
}

export function formatStatus(s: SessionStatus): string {
  const e = s.engineStatus;
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const lines = [
    `Session ${s.sessionId} · engine ${s.engine} · model ${s.model}`,
    `Context: ~${fmt(s.estimatedTokens)} tokens estimated in ${s.messageCount} messages; window ${fmt(s.contextLength)}`,
  ];
  if (e) {
    lines.push(
      `Last prompt: ${fmt(e.lastPromptTokens)} tokens (${e.usagePercent.toFixed(1)}%); threshold ${fmt(e.thresholdTokens)}; compactions ${e.compressionCount}`,
    );
  }
  lines.push(`Turns ${s.turns}; compactions this session ${s.compactions}`);
  return lines.join("\n");
}
