import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { isSummaryMessage, unwrapMergedContent } from "./markers.js";
import { formatInt } from "./prune.js";
import { redactSecrets } from "./redact.js";

/**
 * Turns the summarised middle into plain text records for the summariser.
 * Long contents keep their start and end; when everything together exceeds
 * the input cap, records get a smaller share each, and past that records are
 * sampled evenly (user requests and the newest record always stay) with the
 * gaps marked, so the summariser sees the whole arc rather than the start.
 */

export interface SerializeOptions {
  /** Cap on the whole text, in characters. */
  maxChars: number;
}

const FULL_RECORD_CAP = 6_000;
const MIN_RECORD_CAP = 400;
const USER_RECORD_CAP = 2_000;
const CALL_ARGS_CAP = 1_200;

const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;

/** Text of a content value with non-text parts named. */
export function renderContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    const p = part as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
    if (typeof p.text === "string") parts.push(p.text);
    else if (p.type === "image_url") {
      const url = typeof p.image_url?.url === "string" ? p.image_url.url : "";
      parts.push(url.startsWith("http") ? `[image: ${url}]` : "[image]");
    } else parts.push(`[${typeof p.type === "string" ? p.type : "attachment"}]`);
  }
  return parts.join("\n");
}

interface RecordDraft {
  label: string;
  body: string;
}

function draft(message: Message): RecordDraft | null {
  let m: Message | null = message;
  if (isSummaryMessage(m)) {
    // The previous summary travels separately; keep only a live request merged into it.
    m = unwrapMergedContent(m);
    if (!m) return null;
  }
  switch (m.role) {
    case "user":
      return { label: "USER", body: renderContent(m.content) };
    case "system":
    case "developer":
      return { label: "SYSTEM", body: renderContent(m.content) };
    case "tool": {
      const name = typeof m.name === "string" && m.name ? ` ${m.name}` : "";
      return { label: `TOOL RESULT ${m.tool_call_id}${name}`, body: renderContent(m.content) };
    }
    case "assistant": {
      let body = renderContent(m.content).replace(THINK_BLOCK, "").trim();
      const calls = toolCallsOf(m);
      if (calls.length) {
        // Redacted before the cut: a cut through a secret leaves a fragment no rule recognises.
        const lines = calls.map((c) => `  ${c.function?.name ?? "?"}(${cut(redactSecrets(c.function?.arguments ?? ""), CALL_ARGS_CAP)}) [id ${c.id}]`);
        body += `${body ? "\n" : ""}[Tool calls:\n${lines.join("\n")}\n]`;
      }
      return { label: "ASSISTANT", body };
    }
  }
  return null;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Keep the start and the end of a long text. */
function headTail(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const head = Math.floor(cap * 0.7);
  const tail = cap - head;
  return `${text.slice(0, head)}\n…[${formatInt(text.length - cap)} chars truncated]…\n${text.slice(text.length - tail)}`;
}

/** Cheap size of a message's text, without rendering it. */
function roughChars(m: Message): number {
  let n = 0;
  const c = m.content;
  if (typeof c === "string") n = c.length;
  else if (Array.isArray(c)) for (const part of c) n += typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text.length : 20;
  for (const call of toolCallsOf(m)) n += Math.min(call.function?.arguments?.length ?? 0, CALL_ARGS_CAP) + 40;
  return n;
}

export function serializeTurns(messages: readonly Message[], options: SerializeOptions): string {
  // Size every record cheaply first; only the records that make it into the
  // prompt are rendered (a 200k-token middle is mostly sampled away).
  const items: Message[] = [];
  const sizes: number[] = [];
  const isUser: boolean[] = [];
  for (const m of messages) {
    if (m.role !== "tool" && isSummaryMessage(m) && unwrapMergedContent(m) === null) continue;
    items.push(m);
    sizes.push(roughChars(m) + 24);
    isUser.push(m.role === "user");
  }
  const n = items.length;
  if (n === 0) return "";
  const capOf = (i: number, cap: number) => (isUser[i] ? Math.max(cap, USER_RECORD_CAP) : cap);
  const sizeAt = (cap: number) => {
    let total = 0;
    for (let i = 0; i < n; i++) total += Math.min(sizes[i]!, capOf(i, cap) + 24);
    return total;
  };
  const render = (i: number, cap: number) => {
    const d = draft(items[i]!);
    // Redact the whole body, then keep its head and tail: cutting first can split a secret (a credentials
    // file's key, a token) into pieces no rule recognises.
    return d ? `[${d.label}]: ${headTail(redactSecrets(d.body), capOf(i, cap))}` : "";
  };

  let cap = FULL_RECORD_CAP;
  if (sizeAt(cap) > options.maxChars) cap = Math.max(MIN_RECORD_CAP, Math.floor(options.maxChars / n));
  if (sizeAt(cap) <= options.maxChars) {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = render(i, cap);
      if (r) out.push(r);
    }
    return out.join("\n\n");
  }

  // Too many records even at the minimum share: sample evenly, keeping user
  // requests (up to half the room) and always the newest record.
  const keep = new Uint8Array(n);
  const last = n - 1;
  const cost = (i: number) => Math.min(sizes[i]!, capOf(i, cap) + 24) + 40;
  keep[last] = 1;
  let used = cost(last);
  const half = options.maxChars * 0.5;
  for (let i = last - 1; i >= 0 && used < half; i--) {
    if (isUser[i] && used + cost(i) <= half) {
      keep[i] = 1;
      used += cost(i);
    }
  }
  const room = Math.max(1, Math.floor((options.maxChars - used) / (cap + 64)));
  const stride = Math.max(1, last / room);
  for (let k = 0; k < last; k += stride) {
    const i = Math.floor(k);
    if (!keep[i] && used + cost(i) <= options.maxChars) {
      keep[i] = 1;
      used += cost(i);
    }
  }
  const out: string[] = [];
  let gapStart = -1;
  let gapChars = 0;
  for (let i = 0; i <= last; i++) {
    if (keep[i]) {
      if (gapStart >= 0) {
        out.push(`…[records ${gapStart + 1}-${i} (${formatInt(gapChars)} chars) omitted from this summary input]…`);
        gapStart = -1;
        gapChars = 0;
      }
      const r = render(i, cap);
      if (r) out.push(r);
    } else {
      if (gapStart < 0) gapStart = i;
      gapChars += sizes[i]!;
    }
  }
  return out.join("\n\n");
}
