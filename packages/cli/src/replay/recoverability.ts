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

/** A message not in the context: still to be found through the engine's tools. */
interface Pending {
  index: number;
  fp: Fingerprint;
  message: Message;
}

/**
 * Whether a lossless engine can still produce every message it was given,
 * using only its agent tools, as a model would: each message is either still
 * in the context verbatim, or comes back verbatim from lcm_expand on a
 * summary in the context, or can be found with lcm_grep and expanded, or,
 * where words cannot single it out (an empty tool result, one of many
 * identical outputs), by id: lcm_expand on a found neighbour's stored ref
 * with `around`, matched on role, text and tool-call id.
 *
 * A stored message answers for one original message only.
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
  const pending: Pending[] = [];
  original.forEach((message, index) => {
    if (!inContext.has(canonicalMessage(message))) pending.push({ index, fp: fingerprint(message), message });
  });
  const inContextCount = original.length - pending.length;
  if (pending.length === 0) return { method: "in context", checked: original.length, recovered: inContextCount, missing: [], lost: [], via: { inContext: inContextCount, expandedSummaries: 0, searched: 0 } };

  const expand = (id: string, around = 0) => expandAll(engine, sessionId, final, id, around);
  const found = new Matches();

  // 1. Expand every summary the context refers to.
  const summaryIds = new Set<string>();
  for (const m of visible) for (const id of contentText(m.content).match(SUMMARY_ID) ?? []) summaryIds.add(id.toLowerCase());
  const pool: ExpandedMessage[] = [];
  for (const id of summaryIds) pool.push(...(await expand(id)));
  for (const p of pending) found.claim(p, pool);
  const expanded = found.size;

  // 2. Search for the rest by their words and expand each hit.
  for (const p of pending) {
    if (found.has(p.index)) continue;
    const tried = new Set<string>();
    for (const query of grepQueries(p.fp)) {
      const hits = await callTool(engine, sessionId, final, GREP, { query, mode: "regex", scope: "messages", roles: [p.fp.role], limit: 20, ignore_case: false });
      const refs = "error" in hits ? [] : ((hits.hits as Array<{ ref?: string; type?: string }> | undefined) ?? []).filter((h) => h.ref && h.type !== "summary").map((h) => h.ref!);
      for (const ref of refs.filter((r) => !tried.has(r) && !found.isClaimed(r))) {
        tried.add(ref);
        if (found.claim(p, await expand(ref))) break;
      }
      if (found.has(p.index)) break;
    }
  }

  // 3. By id: the rest sit between messages already found; expand a found neighbour's ref around it.
  await findByNeighbours(pending, found, expand);

  const missing: RecoverabilityResult["missing"] = [];
  const lost: number[] = [];
  for (const p of pending) {
    if (found.has(p.index)) continue;
    lost.push(p.index);
    if (missing.length < 10) missing.push({ index: p.index, role: p.message.role, preview: preview(p.fp) });
  }
  const recovered = inContextCount + found.size;
  return {
    via: { inContext: inContextCount, expandedSummaries: expanded, searched: found.size - expanded },
    method: `in context, ${EXPAND} on ${summaryIds.size} summar${summaryIds.size === 1 ? "y" : "ies"}, ${GREP}+${EXPAND} and ${EXPAND} of neighbours by id for the rest`,
    checked: original.length,
    recovered,
    missing,
    lost,
  };
}

/** Which original message each stored ref answers for; a ref answers for one message at most. */
class Matches {
  readonly #refOf = new Map<number, string>();
  readonly #claimed = new Set<string>();

  get size(): number {
    return this.#refOf.size;
  }
  has(index: number): boolean {
    return this.#refOf.has(index);
  }
  refOf(index: number): string | undefined {
    return this.#refOf.get(index);
  }
  isClaimed(ref: string): boolean {
    return this.#claimed.has(ref);
  }
  /** Match a pending message against candidates; the first unclaimed match is taken. */
  claim(p: Pending, candidates: ExpandedMessage[]): boolean {
    const at = candidates.findIndex((c) => !this.#claimed.has(c.ref) && matches(p.fp, c));
    if (at < 0) return false;
    const [hit] = candidates.splice(at, 1);
    this.#refOf.set(p.index, hit!.ref);
    this.#claimed.add(hit!.ref);
    return true;
  }
}

/** lcm_expand's widest `around`. */
const MAX_AROUND = 20;

/**
 * Messages that words cannot single out, found by stored id: the conversation is stored in order, so
 * a message lies next to the messages around it that were found; expanding a found neighbour's ref
 * with `around` returns it, told apart from identical text by role and tool-call id. Repeats while
 * each pass finds more, so a run of such messages is walked from either end.
 */
async function findByNeighbours(pending: readonly Pending[], found: Matches, expand: (ref: string, around: number) => Promise<ExpandedMessage[]>): Promise<void> {
  const anchors = () => pending.filter((p) => found.has(p.index)).map((p) => p.index);
  const cache = new Map<string, ExpandedMessage[]>();
  for (let progress = true; progress; ) {
    progress = false;
    const known = anchors();
    for (const p of pending) {
      if (found.has(p.index)) continue;
      for (const anchor of nearest(known, p.index)) {
        const distance = Math.abs(anchor - p.index);
        if (distance > MAX_AROUND) break;
        const ref = found.refOf(anchor)!;
        const around = Math.min(MAX_AROUND, distance + 2);
        const key = `${ref}~${around}`;
        let candidates = cache.get(key);
        if (!candidates) cache.set(key, (candidates = await expand(ref, around)));
        if (found.claim(p, candidates)) {
          progress = true;
          break;
        }
      }
    }
  }
}

/** Indices of `sorted` closest to `index` first (at most two each side). */
function nearest(sorted: readonly number[], index: number): number[] {
  let hi = sorted.findIndex((x) => x > index);
  if (hi < 0) hi = sorted.length;
  const out = [sorted[hi - 1], sorted[hi], sorted[hi - 2], sorted[hi + 1]].filter((x): x is number => x !== undefined);
  return out.sort((a, b) => Math.abs(a - index) - Math.abs(b - index));
}

function preview(fp: Fingerprint): string {
  const text = (fp.text || fp.calls).replace(/\s+/g, " ").trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text || "(empty)";
}
