import { checkConversation } from "./conversation-check.js";
import type { ConversationProblemCode } from "./conversation-check.js";
import type { Message } from "./messages.js";
import { contentText, isPlainObject } from "./messages.js";

/**
 * Checks a host runs on what an engine hands back (`selectContext`,
 * `compress`) before using it. They never throw, whatever the value: an
 * accepted result comes back as a fresh JSON copy (so the engine cannot
 * change it afterwards), a rejected one with a reason for the host's event.
 */
export type ResultCheck = { ok: true; messages: Message[] } | { ok: false; reason: string };

/** Deeper than this, a value is refused before anything recurses into it. */
export const MAX_RESULT_DEPTH = 64;

// Pairing problems that make a list unusable; a call left without its result
// is repaired by the request sanitisers, so it is not one of them.
const FATAL_PROBLEMS = new Set<ConversationProblemCode>([
  "not_an_object",
  "unknown_role",
  "bad_content",
  "bad_tool_call",
  "duplicate_tool_call_id",
  "orphan_tool_result",
  "tool_result_out_of_place",
]);

const HOST_ROLES = new Set(["system", "developer"]);

export interface SelectionCheckInput {
  /** The request list the engine was given (the host's own copy, unchanged). */
  request: readonly Message[];
  /** The message that started the turn; the selection must still hold it. */
  incoming: Message | null;
}

/**
 * A `selectContext` result is usable when it is a valid conversation, keeps
 * the host's system prefix exactly (no system or developer message added,
 * removed, moved or rewritten) and still holds the turn's user message: as
 * it is, or quoted verbatim in a user-role message (an engine that compacted
 * a long agent turn's opening request and carries it in its context block).
 */
export function checkSelectionResult(returned: unknown, input: SelectionCheckInput): ResultCheck {
  return guarded(() => {
    const base = checkList(returned);
    if (!base.ok) return base;
    const messages = base.messages;
    const prefix = systemProblem(input.request, messages);
    if (prefix) return { ok: false, reason: prefix };
    if (input.incoming && !holdsUserMessage(messages, input.incoming) && !quotesUserText(messages.filter((m) => m.role === "user"), input.incoming)) {
      return { ok: false, reason: "the turn's user message is missing from the selection" };
    }
    return base;
  });
}

export interface CompressCheckInput {
  /** The user message the result must keep (the turn's, else the latest one), or null. */
  requiredUser: Message | null;
}

/**
 * A `compress` result is usable when it is a valid conversation that still
 * holds the required user message, or quotes its text in one of its messages
 * (a summary that carries an oversized active request verbatim).
 */
export function checkCompressResult(returned: unknown, input: CompressCheckInput): ResultCheck {
  return guarded(() => {
    const base = checkList(returned);
    if (!base.ok) return base;
    const user = input.requiredUser;
    if (user && !holdsUserMessage(base.messages, user) && !quotesUserText(base.messages, user)) {
      return { ok: false, reason: "the latest user message is missing from the compressed list" };
    }
    return base;
  });
}

/** Roles, content types, tool pairing and plain JSON data; the accepted list is a deep copy. */
export function checkList(returned: unknown): ResultCheck {
  return guarded(() => {
    if (!Array.isArray(returned)) return { ok: false, reason: `expected a list of messages, got ${kindOf(returned)}` };
    if (returned.length === 0) return { ok: false, reason: "the list is empty" };
    if (exceedsDepth(returned, MAX_RESULT_DEPTH)) return { ok: false, reason: `the list is nested deeper than ${MAX_RESULT_DEPTH} levels` };
    let copy: unknown;
    try {
      copy = JSON.parse(JSON.stringify(returned));
    } catch (error) {
      return { ok: false, reason: `the list is not plain JSON data (${error instanceof Error ? error.message : String(error)})` };
    }
    if (!Array.isArray(copy) || copy.length !== returned.length) return { ok: false, reason: "the list does not survive a JSON copy" };
    const fatal = checkConversation(copy).find((p) => FATAL_PROBLEMS.has(p.code));
    if (fatal) return { ok: false, reason: fatal.message };
    return { ok: true, messages: copy as Message[] };
  });
}

/**
 * Whether `value` nests objects or arrays deeper than `max`, checked without
 * recursion so that a hostile value cannot exhaust the stack.
 */
export function exceedsDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth >= max) return true;
    if (seen.has(node)) continue;
    seen.add(node);
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

function systemProblem(request: readonly Message[], selected: readonly Message[]): string | null {
  const lead = leadingSystem(request);
  for (let i = 0; i < lead.length; i++) {
    if (!sameMessage(lead[i]!, selected[i])) return `the selection changes the system prefix at message ${i}`;
  }
  const before = request.filter((m) => HOST_ROLES.has(m.role));
  const after = selected.filter((m) => isPlainObject(m) && HOST_ROLES.has(String(m.role)));
  if (after.length > before.length) return "the selection adds a system message";
  if (after.length < before.length) return "the selection removes a system message";
  for (let i = 0; i < before.length; i++) {
    if (!sameMessage(before[i]!, after[i])) return "the selection rewrites a system message";
  }
  return null;
}

function leadingSystem(list: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of list) {
    if (!HOST_ROLES.has(m.role)) break;
    out.push(m);
  }
  return out;
}

function sameMessage(a: Message, b: unknown): boolean {
  if (!isPlainObject(b) || b.role !== a.role) return false;
  return json(a.content) === json(b.content);
}

function holdsUserMessage(list: readonly Message[], user: Message): boolean {
  const want = json(user.content);
  return list.some((m) => m.role === "user" && json(m.content) === want);
}

// Enough of the request to recognise it inside a summary, after "> " quoting and whitespace are normalised.
const QUOTE_PROBE_CHARS = 500;

function quotesUserText(list: readonly Message[], user: Message): boolean {
  const text = typeof user.content === "string" ? user.content : contentText(user.content);
  const probe = normalise(text).slice(0, QUOTE_PROBE_CHARS);
  if (probe.length === 0) return false;
  return list.some((m) => normalise(contentText(m.content)).includes(probe));
}

function normalise(text: string): string {
  return text.replace(/^[ \t]*>[ \t]?/gm, "").replace(/\s+/g, " ").trim();
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return "(unserialisable)";
  }
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

// Getters, proxies and toJSON may throw: whatever happens, the value is refused with a reason.
function guarded(fn: () => ResultCheck): ResultCheck {
  try {
    return fn();
  } catch (error) {
    let text: string;
    try {
      text = error instanceof Error ? error.message : String(error);
    } catch {
      text = "unknown error";
    }
    return { ok: false, reason: `the result could not be inspected (${text})` };
  }
}
