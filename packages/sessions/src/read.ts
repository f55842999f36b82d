import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { detectFormatOfContent, detectFormatOfValue } from "./detect.js";
import { SessionFormatError } from "./errors.js";
import { fromLocomo } from "./formats/locomo.js";
import { fromMiniSweAgent } from "./formats/mini-swe-agent.js";
import { fromOpenAIJsonl } from "./formats/openai-jsonl.js";
import { fromOpenHands } from "./formats/openhands.js";
import { fromSweAgent } from "./formats/swe-agent.js";
import { fromTauBench } from "./formats/tau-bench.js";
import type { ReadSessionsOptions, RecordedSession, SessionFormat } from "./types.js";

/** One converter per format: parsed JSON (or raw text for JSONL) and the file path → sessions. */
export const converters: Readonly<Record<SessionFormat, (raw: unknown, path: string) => RecordedSession[]>> = {
  "openai-jsonl": fromOpenAIJsonl,
  "mini-swe-agent": fromMiniSweAgent,
  "swe-agent": fromSweAgent,
  openhands: fromOpenHands,
  "tau-bench": fromTauBench,
  locomo: fromLocomo,
};

const CANDIDATE = /\.(json|jsonl|ndjson|traj)$/i;

/**
 * Convert file content to sessions. The format is detected unless given;
 * throws a SessionFormatError naming the file and field when it cannot.
 */
export function parseSessions(content: string, options: { format?: SessionFormat; path?: string } = {}): RecordedSession[] {
  const path = options.path ?? "<inline>";
  let value: unknown;
  let isJson = true;
  try {
    value = JSON.parse(content);
  } catch {
    isJson = false;
  }
  const format = options.format ?? (isJson ? detectFormatOfValue(value) : detectFormatOfContent(content));
  if (!format) {
    throw new SessionFormatError(
      path,
      "not a recognised recorded-session format (expected OpenAI JSON/JSONL, mini-swe-agent, SWE-agent, OpenHands, tau-bench or LoCoMo)",
    );
  }
  if (format === "openai-jsonl") return fromOpenAIJsonl(content, path);
  if (!isJson) throw new SessionFormatError(path, `not valid JSON, which the ${format} format requires`);
  return converters[format](value, path);
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const out: string[] = [];
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile() && CANDIDATE.test(entry.name)) out.push(full);
  }
  return out;
}

/**
 * Read recorded sessions from a file or a folder (recursively, in name order).
 * In a folder, files of no known format (summaries, licences) are skipped, and
 * with `format` only files of that format are read. `limit` stops early.
 */
export async function readSessions(path: string, options: ReadSessionsOptions = {}): Promise<RecordedSession[]> {
  const info = await stat(path).catch((error: unknown) => {
    throw new SessionFormatError(path, `cannot read: ${(error as Error).message}`, { cause: error });
  });
  const limit = options.limit ?? Infinity;
  if (!(limit > 0)) return [];
  if (info.isFile()) {
    const sessions = parseSessions(await readFile(path, "utf8"), { path, ...(options.format ? { format: options.format } : {}) });
    return sessions.slice(0, limit);
  }
  const out: RecordedSession[] = [];
  for (const file of await listFiles(path)) {
    const content = await readFile(file, "utf8");
    const format = detectFormatOfContent(content);
    if (!format || (options.format && format !== options.format)) continue;
    out.push(...parseSessions(content, { path: file, format }));
    if (out.length >= limit) return out.slice(0, limit);
  }
  return out;
}
