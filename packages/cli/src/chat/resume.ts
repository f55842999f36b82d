import { resolveHome } from "@context-engine/plugin-loader";
import { InputError } from "../errors.js";
import { formatInt } from "../format/numbers.js";
import { renderTable } from "../format/table.js";
import type { CliIO } from "../io.js";
import { TranscriptStore, type LoadedTranscript } from "./transcripts.js";

/** Transcripts live under the context-engine home (`$CONTEXT_ENGINE_HOME`, else ~/.context-engine). */
export function openStore(io: CliIO): TranscriptStore {
  return new TranscriptStore(resolveHome({ env: io.env, cwd: io.cwd }));
}

export function listChats(store: TranscriptStore): string {
  const chats = store.list();
  if (chats.length === 0) return `No saved chats yet (they are kept in ${store.dir}).\n`;
  const rows = chats.map((c) => [
    c.id,
    c.updatedAt.toISOString().slice(0, 16).replace("T", " "),
    c.model,
    c.engine,
    formatInt(c.messages),
    oneLine(c.firstUser, 50),
  ]);
  return `${renderTable(
    [{ header: "id" }, { header: "last active (UTC)" }, { header: "model" }, { header: "engine" }, { header: "messages", align: "right" }, { header: "first message" }],
    rows,
  )}Resume one with: context-engine chat --resume <id>   (the newest: --resume alone)\n`;
}

/** The chat to resume: by id (a unique prefix works), or the newest when `id` is null. */
export function pickResume(store: TranscriptStore | null, id: string | null): LoadedTranscript {
  if (!store) throw new InputError("chat: --resume needs saved transcripts; drop --no-save");
  const chats = store.list();
  if (id === null) {
    const latest = chats[0];
    if (!latest) throw new InputError(`chat --resume: no saved chats in ${store.dir}`, { hints: ["Start one with 'context-engine chat'."] });
    return store.load(latest.id)!;
  }
  const matches = chats.filter((c) => c.id === id || c.id.startsWith(id));
  const exact = matches.find((c) => c.id === id);
  const chosen = exact ?? (matches.length === 1 ? matches[0] : undefined);
  if (!chosen) {
    throw new InputError(matches.length > 1 ? `chat --resume: ${id} matches ${matches.length} chats; give more of the id` : `chat --resume: no saved chat ${id}`, {
      hints: ["Run 'context-engine chat --list' to see the saved chats."],
    });
  }
  return store.load(chosen.id)!;
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
