import type { ContextEngine, Message } from "@context-engine/core";
import { contentText, toolCallsOf } from "@context-engine/core";
import type { RecoverabilityResult } from "./metrics.js";
import { canonicalMessage } from "./prefix.js";

const GREP = "lcm_grep";
const EXPAND = "lcm_expand";
const SUMMARY_ID = /\bsum_[0-9a-f]{16}\b/gi;
const REDACTION = /\[REDACTED:[^\]]*\]/g;
/** lcm_expand's largest page. */
const PAGE_TOKENS = 50_000;
const MAX_PAGES = 200;

/** Engines that promise to keep every message: they expose lcm_grep and lcm_expand, or say `lossless = true`. */
export function isLossless(engine: ContextEngine): boolean {
  if ((engine as { lossless?: unknown }).lossless === true) return true;
  try {
    const names = new Set(engine.getToolSchemas().map((s) => s.name));
    return names.has(GREP) && names.has(EXPAND);
  } catch {
    return false;
  }
}

/** What a message must come back as: role, text, tool calls and the call it answers. */
interface Fingerprint {
  role: string;
  text: string;
  calls: string;
  toolCallId: string | null;
  /** Each call as LCM indexes it for lcm_grep: "name arguments" (not the "name(arguments)" shown to people). */
  searchableCalls: string[];
}

function fingerprint(m: Message): Fingerprint {
  return {
    role: m.role,
    text: contentText(m.content),
    calls: toolCallsOf(m)
      .map((c) => `${c.function.name}(${c.function.arguments})`)
      .join("\n"),
    toolCallId: m.role === "tool" ? m.tool_call_id : null,
    searchableCalls: toolCallsOf(m).map((c) => `${c.function.name} ${c.function.arguments}`),
  };
}

/** A message as lcm_expand returns it. */
interface ExpandedMessage {
  ref: string;
  role: string;
  content?: string;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  tool_call_id?: string;
  redacted?: boolean;
  part?: { from: number; to: number; of: number };
}

function recoveredFingerprint(m: ExpandedMessage): Fingerprint {
  return {
    role: m.role,
    text: m.content ?? "",
    calls: (m.tool_calls ?? []).map((c) => `${c.name}(${c.arguments})`).join("\n"),
    toolCallId: m.tool_call_id ?? null,
    searchableCalls: [],
  };
}

/** Text equality, where a stored `[REDACTED:kind]` stands for the secret it replaced. */
function sameText(original: string, recovered: string, redacted: boolean): boolean {
  if (original === recovered) return true;
  if (!redacted || !REDACTION.test(recovered)) return false;
  REDACTION.lastIndex = 0;
  const pattern = recovered
    .split(REDACTION)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]+?");
  return new RegExp(`^${pattern}$`).test(original);
}

function matches(original: Fingerprint, recovered: ExpandedMessage): boolean {
  const r = recoveredFingerprint(recovered);
  const redacted = recovered.redacted === true;
  return (
    original.role === r.role &&
    original.toolCallId === r.toolCallId &&
    sameText(original.text, r.text, redacted) &&
    sameText(original.calls, r.calls, redacted)
  );
}

/** Call an engine tool and parse its JSON answer; null on an error answer. */
async function callTool(engine: ContextEngine, sessionId: string, messages: readonly Message[], name: string, args: Record<string, unknown>) {
  const raw = await engine.handleToolCall(name, args, { sessionId, messages });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error(`${name} returned something that is not JSON: ${raw.slice(0, 120)}`);
  }
  if (value && typeof value === "object" && "error" in value) return { error: String((value as { error: unknown }).error) };
  return value as Record<string, unknown>;
}

/** Every message under one id (summary or message ref), following nextCursor pages; parts of large messages are joined. */
async function expandAll(engine: ContextEngine, sessionId: string, final: readonly Message[], id: string, around = 0): Promise<ExpandedMessage[]> {
  const out: ExpandedMessage[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const args: Record<string, unknown> = { id, max_tokens: PAGE_TOKENS, ...(around ? { around } : {}), ...(cursor ? { cursor } : {}) };
    const result = await callTool(engine, sessionId, final, EXPAND, args);
    if ("error" in result) throw new Error(`${EXPAND}(${id}) failed: ${result.error}`);
    for (const m of (result.messages as ExpandedMessage[] | undefined) ?? []) {
      const last = out.at(-1);
      if (m.part && m.part.from > 0 && last && last.ref === m.ref) last.content = (last.content ?? "") + (m.content ?? "");
      else out.push({ ...m });
    }
    cursor = typeof result.nextCursor === "string" ? result.nextCursor : null;
    if (!cursor) break;
  }
  return out;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Literal-safe regex queries for a message, most distinctive first (lcm_grep caps queries at 500 chars):
 * the longest line of its text, else each tool call as LCM indexes it ("name arguments"), then the bare
 * call name. A tool-call-only message has no text, so searching for its "name(arguments)" rendering
 * found nothing: that is how such messages were reported lost at small windows.
 */
function grepQueries(fp: Fingerprint): string[] {
  const lines = fp.text.split("\n").map((l) => l.trim()).filter((l) => l.length >= 8 && !REDACTION.test(l));
  REDACTION.lastIndex = 0;
  const queries: string[] = [];
  const longest = lines.sort((a, b) => b.length - a.length)[0] ?? fp.text.trim();
  if (longest) queries.push(longest);
  for (const call of fp.searchableCalls) {
    const firstLine = call.split("\n")[0]!.trim();
    if (firstLine && !REDACTION.test(firstLine)) queries.push(firstLine);
    REDACTION.lastIndex = 0;
    queries.push(call.slice(0, call.indexOf(" ")));
  }
  return [...new Set(queries.filter(Boolean).map((q) => escapeRegex(q.slice(0, 120))))];
}

/**
 * Whether a lossless engine can still produce every message it was given,
 * using only its agent tools, as a model would: each message is either still
 * in the context verbatim, or comes back verbatim from lcm_expand on a
 * summary in the context, or can be found with lcm_grep and expanded.
 */
export async function checkRecoverable(args: {
  engine: ContextEngine;
  sessionId: string;
  original: readonly Message[];
  final: readonly Message[];
  lastRequest?: readonly Message[];
}): Promise<RecoverabilityResult | null> {
  const { engine, sessionId, original, final } = args;
  if (!isLossless(engine)) return null;
  // "The context" is both what the host keeps and what the engine last selected for the model.
  const visible = [...final, ...(args.lastRequest ?? [])];
  const inContext = new Set(visible.map(canonicalMessage));
  const pending: Array<{ index: number; fp: Fingerprint; message: Message }> = [];
  let recovered = 0;
  original.forEach((message, index) => {
    if (inContext.has(canonicalMessage(message))) recovered++;
    else pending.push({ index, fp: fingerprint(message), message });
  });
  const inContextCount = recovered;
  if (pending.length === 0) return { method: "in context", checked: original.length, recovered, missing: [], lost: [], via: { inContext: recovered, expandedSummaries: 0, searched: 0 } };

  // 1. Expand every summary the context refers to.
  const summaryIds = new Set<string>();
  for (const m of visible) for (const id of contentText(m.content).match(SUMMARY_ID) ?? []) summaryIds.add(id.toLowerCase());
  const pool: ExpandedMessage[] = [];
  for (const id of summaryIds) pool.push(...(await expandAll(engine, sessionId, final, id)));
  const take = (fp: Fingerprint, candidates: ExpandedMessage[]): boolean => {
    const at = candidates.findIndex((c) => matches(fp, c));
    if (at < 0) return false;
    candidates.splice(at, 1);
    return true;
  };
  const still = pending.filter((p) => !take(p.fp, pool));
  recovered += pending.length - still.length;
  const expanded = pending.length - still.length;

  // 2. Search for the rest and expand each hit.
  const missing: RecoverabilityResult["missing"] = [];
  const lost: number[] = [];
  for (const p of still) {
    let found = false;
    const tried = new Set<string>();
    for (const query of grepQueries(p.fp)) {
      const hits = await callTool(engine, sessionId, final, GREP, { query, mode: "regex", scope: "messages", roles: [p.fp.role], limit: 20, ignore_case: false });
      const refs = "error" in hits ? [] : ((hits.hits as Array<{ ref?: string; type?: string }> | undefined) ?? []).filter((h) => h.ref && h.type !== "summary").map((h) => h.ref!);
      for (const ref of refs) {
        if (tried.has(ref)) continue;
        tried.add(ref);
        if (take(p.fp, await expandAll(engine, sessionId, final, ref))) {
          found = true;
          break;
        }
      }
      if (found) break;
    }
    if (found) recovered++;
    else {
      lost.push(p.index);
      if (missing.length < 10) missing.push({ index: p.index, role: p.message.role, preview: preview(p.fp) });
    }
  }
  return {
    via: { inContext: inContextCount, expandedSummaries: expanded, searched: recovered - inContextCount - expanded },
    method: `in context, ${EXPAND} on ${summaryIds.size} summar${summaryIds.size === 1 ? "y" : "ies"}, ${GREP}+${EXPAND} for the rest`,
    checked: original.length,
    recovered,
    missing,
    lost,
  };
}

function preview(fp: Fingerprint): string {
  const text = (fp.text || fp.calls).replace(/\s+/g, " ").trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text || "(empty)";
}
