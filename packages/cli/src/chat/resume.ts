import { resolveHome } from "@context-engine/plugin-loader";
import { InputError, UsageError } from "../errors.js";
import { formatInt } from "../format/numbers.js";
import { fitLines } from "../format/fit-screen.js";
import { renderFitTable, wrapText } from "../format/fit-table.js";
import { shownTime } from "./message-text.js";
import type { CliIO } from "../io.js";
import { isChatId, TranscriptStore, type LoadedTranscript } from "./transcripts.js";

/** Transcripts live under the context-engine home (`$CONTEXT_ENGINE_HOME`, else ~/.context-engine). */
export function openStore(io: CliIO): TranscriptStore {
  return new TranscriptStore(resolveHome({ env: io.env, cwd: io.cwd }));
}

export function listChats(store: TranscriptStore, width = Number.POSITIVE_INFINITY): string {
  const chats = store.list();
  if (chats.length === 0) return `No saved chats yet (they are kept in ${store.dir}).\n`;
  const rows = chats.map((c) => [c.id, shownTime(c.updatedAt).replace(" UTC", ""), c.model, c.engine, formatInt(c.messages), oneLine(c.firstUser, 200)]);
  const columns = [
    { header: "id" },
    { header: "last active (UTC)" },
    { header: "model" },
    { header: "engine" },
    { header: "messages", align: "right" as const },
    { header: "first message", flex: "cut" as const },
  ];
  const fixed = columns.slice(0, -1).reduce((sum, c, i) => sum + Math.max(c.header.length, ...rows.map((r) => r[i]!.length)) + 2, 0);
  const firstNeeds = Math.min(MIN_FIRST, Math.max(...rows.map((r) => r[5]!.length)));
  // A terminal too narrow for every column whole gets one short block per chat instead of cut columns.
  const body =
    fixed + firstNeeds <= width
      ? renderFitTable(columns, rows.map((r) => r.map((text) => ({ text }))), Number.isFinite(width) ? width : 10_000)
      : rows.map((r) => chatBlock(r, width)).join("");
  const footer = "Resume one with: context-engine chat --resume <id or prefix>   (the newest: --resume alone)";
  return `${body}${fitLines(footer, Number.isFinite(width) ? width : 10_000)}\n`;
}

/** The first message gets at least this much room in the table layout. */
const MIN_FIRST = 24;

function chatBlock([id, at, model, engine, messages, first]: string[], width: number): string {
  const lines = [
    `${id}  ${at} UTC`,
    `  ${model} · ${engine} · ${messages} message${messages === "1" ? "" : "s"}`,
    ...(first ? firstLines(first, Math.max(10, width - 4)) : []),
  ];
  return `${fitLines(lines.join("\n"), width)}\n`;
}

/** The first message on at most two lines, quoted; "…" where it goes on. */
function firstLines(text: string, width: number): string[] {
  const wrapped = wrapText(text, width);
  const shown = wrapped.slice(0, 2);
  if (wrapped.length > 2) shown[1] = `${shown[1]!.slice(0, width - 1)}…`;
  return shown.map((l, i) => `  ${i === 0 ? "“" : " "}${l}${i === shown.length - 1 ? "”" : ""}`);
}

/** `--resume <value>`: a value that is a path, not an id, is refused before anything is sent. */
export function checkResumeId(id: string): void {
  if (isChatId(id)) return;
  const pathLike = /[/\\]/.test(id) || id.startsWith(".") || id.startsWith("~");
  throw new UsageError(`chat --resume: ${JSON.stringify(id)} is ${pathLike ? "a path, not a chat id" : "not a chat id"}`, {
    hints: ["A chat id (or a prefix of one) has letters, digits, '.', '_' and '-'; 'context-engine chat --list' shows them."],
  });
}

/** The chat to resume: by id or unique prefix, or the newest when `id` is null. */
export function pickResume(store: TranscriptStore | null, id: string | null): LoadedTranscript {
  if (!store) throw new InputError("chat: --resume needs saved transcripts; drop --no-save");
  const ids = store.ids();
  if (id === null) {
    const latest = ids[0];
    if (!latest) throw new InputError(`chat --resume: no saved chats in ${store.dir}`, { hints: ["Start one with 'context-engine chat'."] });
    return store.load(latest)!;
  }
  checkResumeId(id);
  const matches = ids.includes(id) ? [id] : ids.filter((c) => c.startsWith(id));
  if (matches.length > 1) {
    throw new UsageError(`chat --resume: ${JSON.stringify(id)} matches ${matches.length} chats`, {
      hints: [`Candidates: ${matches.slice(0, 10).join(", ")}${matches.length > 10 ? ", …" : ""}`, "Give more of the id."],
    });
  }
  if (matches.length === 0) {
    throw new InputError(`chat --resume: no saved chat ${JSON.stringify(id)} in ${store.dir}`, { hints: ["Run 'context-engine chat --list' to see the saved chats."] });
  }
  return store.load(matches[0]!)!;
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
