import { readFileSync, statSync } from "node:fs";
import type { SessionFormat } from "./types.js";

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The format of an already parsed JSON document, or null. */
export function detectFormatOfValue(value: unknown): SessionFormat | null {
  if (isObject(value)) {
    if (typeof value.trajectory_format === "string" && value.trajectory_format.startsWith("mini-swe-agent")) return "mini-swe-agent";
    if (Array.isArray(value.messages) && isObject(value.info) && "instance_id" in value) return "mini-swe-agent";
    if (Array.isArray(value.history) && ("trajectory" in value || "info" in value)) return "swe-agent";
    if (Array.isArray(value.messages)) return "openai-jsonl";
    // A JSONL file of a single message line.
    if (typeof value.role === "string") return "openai-jsonl";
    return null;
  }
  if (Array.isArray(value)) {
    const first = value[0];
    if (!isObject(first)) return null;
    if (Array.isArray(first.traj)) return "tau-bench";
    if (isObject(first.conversation) && "sample_id" in first) return "locomo";
    if (Array.isArray(first.messages) && typeof first.instance_id === "string") return "openhands";
    if (Array.isArray(first.messages)) return "openai-jsonl";
    if (typeof first.role === "string") return "openai-jsonl";
  }
  return null;
}

/** The format of file content (JSON or JSON lines), or null. */
export function detectFormatOfContent(content: string): SessionFormat | null {
  const text = content.trim();
  if (!text) return null;
  try {
    return detectFormatOfValue(JSON.parse(text));
  } catch {
    // Not one document: maybe JSON lines.
  }
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  try {
    const value = JSON.parse(firstLine) as unknown;
    if (isObject(value) && (typeof value.role === "string" || Array.isArray(value.messages))) return "openai-jsonl";
    // A context-engine chat transcript: a session header, then message lines.
    if (isObject(value) && value.type === "session" && typeof value.id === "string") return "openai-jsonl";
  } catch {
    return null;
  }
  return null;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The recorded-session format of a file path or of file content; null when it
 * is none of the known formats. A string that names an existing file is read.
 */
export function detectFormat(pathOrContent: string): SessionFormat | null {
  const looksLikeContent = /^\s*[[{]/.test(pathOrContent);
  if (!looksLikeContent && isFile(pathOrContent)) return detectFormatOfContent(readFileSync(pathOrContent, "utf8"));
  return detectFormatOfContent(pathOrContent);
}
