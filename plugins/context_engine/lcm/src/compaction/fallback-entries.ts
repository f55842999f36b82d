/**
 * Parsing a summary source into entries for the deterministic summary: one
 * entry per source message (`[#seq role]` blocks as `renderSourceMessages`
 * writes them) or per line of a child summary, with the facts a continuation
 * needs most pulled out whole: full command lines and error lines.
 */

export interface SourceEntry {
  /** `#12 user`, or "" for lines of a child summary without a sequence number. */
  label: string;
  /** Prose of the entry, to be shortened word by word. */
  prose: string;
  /** Verbatim lines: `$ command` and `! error` lines. */
  facts: string[];
}

const HEADER = /^\[#(\d+) ([a-z]+)(?: result)?(?: [^\]]*)?\]$/;
const CALL = /^→ calls ([\w.-]+)\(([\s\S]*)\)$/;
const OWN_LINE = /^(#\d+(?:–#\d+)?(?: [a-z]+)?)(?: (.*))?$/;
// Error names, failure words, and pytest's `E   …` assertion lines.
const ERROR_LINE = /\b(?:\w*Error|\w*Exception|Traceback|FAILED|FAIL:|fatal|error:|panic|denied|not found|No such file)\b|^E {2,}\S/;
const MAX_FACT_CHARS = 200;

/** The first line of a tool call's shell command, else `name args…` (an editor call is named by its arguments). */
export function commandLine(name: string, args: string): string {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return oneLine(`${name} ${args}`);
  }
  const obj = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const cmd = typeof obj.command === "string" ? obj.command : typeof obj.cmd === "string" ? obj.cmd : null;
  if (cmd !== null && /\s/.test(cmd.trim())) return oneLine(cmd.trim());
  return oneLine(`${name} ${Object.values(obj).filter((v) => typeof v === "string").join(" ")}`);
}

function oneLine(text: string): string {
  const first = text.split("\n")[0]!.trim();
  return first.length > MAX_FACT_CHARS ? `${first.slice(0, MAX_FACT_CHARS)}…` : first;
}

function errorLines(body: string): string[] {
  const out: string[] = [];
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (line.length >= 8 && ERROR_LINE.test(line) && !out.includes(line)) out.push(oneLine(line));
    if (out.length >= 6) break;
  }
  return out;
}

export function parseEntries(source: string, isNoise: (line: string) => boolean): SourceEntry[] {
  const entries: SourceEntry[] = [];
  let current: { label: string; role: string; body: string[]; facts: string[] } | null = null;
  const flush = () => {
    if (!current) return;
    const body = current.body.join("\n");
    const facts = [...current.facts];
    if (current.role === "tool" || current.role === "user") for (const e of errorLines(body)) facts.push(`! ${e}`);
    // A tool result's prose is its first line (status); messages keep all their text.
    const prose = current.role === "tool" ? (current.body.find((l) => l.trim() !== "")?.trim() ?? "") : body;
    entries.push({ label: current.label, prose, facts });
    current = null;
  };
  for (const line of source.split("\n")) {
    const header = HEADER.exec(line.trim());
    if (header) {
      flush();
      current = { label: `#${header[1]} ${header[2]}`, role: header[2]!, body: [], facts: [] };
      continue;
    }
    if (current) {
      const call = CALL.exec(line.trim());
      if (call) current.facts.push(`$ ${commandLine(call[1]!, call[2]!)}`);
      else current.body.push(line);
      continue;
    }
    // Lines of a child summary (ours or a model's).
    const text = line.trim();
    if (!text || isNoise(text)) continue;
    if (text.startsWith("$ ") || text.startsWith("! ")) {
      const last = entries[entries.length - 1];
      if (last) last.facts.push(text);
      else entries.push({ label: "", prose: "", facts: [text] });
      continue;
    }
    const own = OWN_LINE.exec(text);
    entries.push(own ? { label: own[1]!, prose: own[2] ?? "", facts: [] } : { label: "", prose: text, facts: [] });
  }
  flush();
  return entries;
}
