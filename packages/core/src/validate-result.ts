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

export interface SelectionCheckInput {
  /** The request list the engine was given (the host's own copy, unchanged). */
  request: readonly Message[];
  /** The message that started the turn. Not required in the selection: a routed request may rephrase or drop it. */
  incoming?: Message | null;
}

// Roles the provider still accepts that the request sanitisers pass on (legacy `function`).
const SELECTION_EXTRA_ROLES = new Set(["function"]);

/**
 * A `selectContext` result is usable when it is a structurally valid list
 * that keeps the host's system prefix. The contract lets an engine replace
 * the request (retrieval, topic routing, role switching), so it may rephrase
 * or drop any other message, the turn's own included. Refused, as the
 * contract and the provider rule them out: a non-list, an empty list,
 * non-objects, unknown roles or malformed content, a changed, removed or
 * injected system prefix, a stray system message after it (one the request
 * did not hold there), a tool result without its call and a call without
 * its result. Role-unusual but valid lists (two user messages in a row,
 * `developer` or `function` messages) pass on to the request sanitisers.
 */
export function checkSelectionResult(returned: unknown, input: SelectionCheckInput): ResultCheck {
  return guarded(() => {
    const base = checkList(returned, { extraRoles: SELECTION_EXTRA_ROLES, requireToolResults: true });
    if (!base.ok) return base;
    const problem = systemProblem(input.request, base.messages);
    return problem ? { ok: false, reason: problem } : base;
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

export interface CheckListOptions {
  /** Roles accepted besides the standard ones (their messages are not inspected further). */
  extraRoles?: ReadonlySet<string>;
  /** Refuse a tool call left without its result (default: the request sanitisers repair it). */
  requireToolResults?: boolean;
}

/** Roles, content types, tool pairing and plain JSON data; the accepted list is a deep copy. */
export function checkList(returned: unknown, options: CheckListOptions = {}): ResultCheck {
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
    const extra = options.extraRoles;
    const requireResults = options.requireToolResults === true;
    const fatal = checkConversation(copy, { allowTrailingInFlightCall: !requireResults }).find(
      (p) =>
        (FATAL_PROBLEMS.has(p.code) || (requireResults && p.code === "missing_tool_result")) &&
        !(p.code === "unknown_role" && extra?.has(String((copy as Array<{ role?: unknown }>)[p.index]?.role))),
    );
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

/**
 * The leading system messages must come back exactly; after them, a system
 * message is allowed only where the request held that same message after
 * its prefix (a kept one), never a new one.
 */
function systemProblem(request: readonly Message[], selected: readonly Message[]): string | null {
  const lead = leadingSystem(request);
  const selectedLead = leadingSystem(selected);
  for (let i = 0; i < lead.length; i++) {
    if (!sameMessage(lead[i]!, selected[i])) return `the selection changes the system prefix at message ${i}`;
  }
  if (selectedLead.length > lead.length) return `the selection injects a system message into the system prefix at message ${lead.length}`;
  const later = new Set(request.slice(lead.length).filter((m) => m.role === "system").map((m) => json(m.content)));
  for (let i = lead.length; i < selected.length; i++) {
    const m = selected[i]!;
    if (m.role === "system" && !later.has(json(m.content))) return `the selection adds a system message after the system prefix at message ${i}`;
  }
  return null;
}

// The host's system prompt: the run of `system` messages the list opens with.
function leadingSystem(list: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of list) {
    if (m.role !== "system") break;
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
