import { hash as oneShotHash } from "node:crypto";
import type { Message, Role } from "@context-engine/core";
import { redactDeep } from "../redact/redactor.js";
import type { Redactor } from "../redact/types.js";

/**
 * Message <-> row encoding. A message is stored as columns plus structured
 * parts, never as a JSON blob: the text is stored once, tool calls keep their
 * structure, and the original OpenAI shape is rebuilt on read.
 */

/** Content shape, so `""`, `null` and part lists round-trip. */
export const enum Shape {
  String = 0,
  Null = 1,
  Parts = 2,
}

/** Part kinds in `message_parts`. */
export const enum PartKind {
  ToolCall = 1,
  /** A plain text content part; its text lives in `messages.text` (span = length). */
  Text = 2,
  /** Any other content part (image_url, input_audio, file…), as JSON. */
  Other = 3,
}

export interface EncodedPart {
  kind: PartKind;
  ordinal: number;
  callId: string | null;
  name: string | null;
  /** Arguments (tool call) or JSON (other part); null for text parts. */
  body: string | null;
  span: number | null;
  extra: string | null;
}

export interface EncodedMessage {
  role: Role;
  /** Content text (text parts joined by "\n"); redacted. */
  text: string;
  shape: Shape;
  name: string | null;
  toolCallId: string | null;
  extra: string | null;
  parts: EncodedPart[];
  /** Everything searchable: content text, then each call as "name arguments". */
  searchText: string;
  toolCallIds: string[];
  /** The redacted message as it will be read back (for token counting). */
  message: Message;
  /** 8-byte identity hash of the redacted canonical form (compared within one conversation only). */
  hash: Buffer;
  /** The same hash in hex, as alignment compares it. */
  hashHex: string;
  /** The hash without tool-call ids (a host that rewrote them still sends the same message), hex. */
  looseHex: string;
  redacted: boolean;
  /** Secrets found, per kind. */
  redactions: Record<string, number>;
  hasCjk: boolean;
}

const KNOWN_KEYS = new Set(["role", "content", "tool_calls", "tool_call_id", "name"]);
const ROLES = new Set<Role>(["system", "developer", "user", "assistant", "tool"]);
export const CJK_RE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/;

function omit(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    if (keys.includes(k) || v === undefined) continue;
    (out ??= {})[k] = v;
  }
  return out;
}

/** Redact one string, adding what was found to `found`. */
function redactString(redactor: Redactor, s: string, found: Record<string, number>): string {
  if (!redactor.enabled) return s;
  const r = redactor.redactText(s);
  for (const k of Object.keys(r.found)) found[k] = (found[k] ?? 0) + r.found[k]!;
  return r.text;
}

/** ES2024's String methods (Node 20 has them; the project's TypeScript lib is ES2023). */
interface WellFormedCheck {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** `s` with each unpaired surrogate as U+FFFD; `s` itself when it has none (a native scan, no regex). */
export function wellFormedString(s: string): string {
  const w = s as unknown as WellFormedCheck;
  return w.isWellFormed() ? s : w.toWellFormed();
}

/**
 * The one rule for unpaired surrogates, at ingest and at import alike: each becomes U+FFFD (UTF-8, which both
 * stores write, cannot hold one), in every string of the value, keys too. What the store keeps is therefore
 * well-formed, exports as it is, and imports again. Returns `value` itself when nothing changes.
 */
export function withWellFormedText<T>(value: T, depth = 0): T {
  if (typeof value === "string") return wellFormedString(value) as T;
  if (depth > 256 || !value || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) continue;
      const v = withWellFormedText(value[i], depth + 1);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return (out ?? value) as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  let out: Record<string, unknown> | null = null;
  const record = value as Record<string, unknown>;
  // Object.keys, not Object.entries: no [key, value] pair per property of every message.
  for (const k of Object.keys(record)) {
    const v = record[k];
    const key = wellFormedString(k);
    const next = withWellFormedText(v, depth + 1);
    if (key !== k || next !== v) {
      out ??= { ...(value as Record<string, unknown>) };
      if (key !== k) delete out[k];
      out[key] = next;
    }
  }
  return (out ?? value) as T;
}

// Encoding runs once per stored message, so it avoids per-message closures and callbacks (plain loops;
// `i in list` keeps forEach's skipping of holes in sparse arrays).

/**
 * Encode one message (redacting first). Throws on a message that is not an object with a known role.
 */
export function encodeMessage(raw: Message, redactor: Redactor): EncodedMessage {
  const m = withWellFormedText(raw) as Record<string, unknown>;
  const role = m.role as Role;
  if (!ROLES.has(role)) throw new Error(`unknown role ${JSON.stringify(m.role)}`);
  const found: Record<string, number> = {};

  const parts: EncodedPart[] = [];
  let text = "";
  let shape: Shape;
  let content: unknown;
  let canonicalContent: string;
  const rawContent = m.content;
  if (typeof rawContent === "string") {
    shape = Shape.String;
    text = redactString(redactor, rawContent, found);
    content = text;
    canonicalContent = text;
  } else if (Array.isArray(rawContent)) {
    shape = Shape.Parts;
    const texts: string[] = [];
    const rebuilt: unknown[] = [];
    let plainOnly = true;
    for (let ordinal = 0; ordinal < rawContent.length; ordinal++) {
      if (!(ordinal in rawContent)) continue;
      const part: unknown = rawContent[ordinal];
      const p = (part && typeof part === "object" ? part : { type: "unknown", value: part }) as Record<string, unknown>;
      if (p.type === "text" && typeof p.text === "string") {
        const t = redactString(redactor, p.text, found);
        const rest = omit(p, ["type", "text"]);
        const restRed = rest ? redactDeep(redactor, rest, found) : null;
        if (restRed) plainOnly = false;
        texts.push(t);
        parts.push({ kind: PartKind.Text, ordinal, callId: null, name: null, body: null, span: t.length, extra: restRed ? JSON.stringify(restRed) : null });
        rebuilt.push({ type: "text", text: t, ...(restRed ?? {}) });
      } else {
        plainOnly = false;
        const pr = redactDeep(redactor, p, found);
        parts.push({ kind: PartKind.Other, ordinal, callId: null, name: null, body: JSON.stringify(pr), span: null, extra: null });
        rebuilt.push(pr);
      }
    }
    text = texts.join("\n");
    content = rebuilt;
    // A list of plain text parts is the same message as the joined string.
    canonicalContent = plainOnly ? text : `\u0002${JSON.stringify(rebuilt)}`;
  } else {
    shape = Shape.Null;
    content = null;
    canonicalContent = "\u0001";
  }

  const calls: Array<Record<string, unknown>> = [];
  const toolCallIds: string[] = [];
  let callText = "";
  let canonicalCalls = "";
  let looseCalls = "";
  const rawCalls = m.tool_calls;
  if (Array.isArray(rawCalls)) {
    for (let ordinal = 0; ordinal < rawCalls.length; ordinal++) {
      if (!(ordinal in rawCalls)) continue;
      const c = (rawCalls[ordinal] ?? {}) as Record<string, unknown>;
      const fn = (c.function ?? {}) as Record<string, unknown>;
      const id = typeof c.id === "string" ? c.id : "";
      const name = typeof fn.name === "string" ? fn.name : "";
      const args = redactString(redactor, typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? ""), found);
      const rest = omit(c, ["id", "type", "function"]);
      const fnRest = omit(fn, ["name", "arguments"]);
      const extraObj = rest || fnRest ? redactDeep(redactor, { r: rest ?? undefined, f: fnRest ?? undefined }, found) : null;
      parts.push({ kind: PartKind.ToolCall, ordinal, callId: id, name, body: args, span: null, extra: extraObj ? JSON.stringify(extraObj) : null });
      toolCallIds.push(id);
      calls.push({ ...(rest ?? {}), id, type: "function", function: { ...(fnRest ?? {}), name, arguments: args } });
      callText += `\n${name} ${args}`;
      canonicalCalls += `${id}\u001f${name}\u001f${args}\u001e`;
      looseCalls += `${name}\u001f${args}\u001e`;
    }
  }

  const name = typeof m.name === "string" ? m.name : null;
  const toolCallId = typeof m.tool_call_id === "string" ? m.tool_call_id : null;
  let extraObj: Record<string, unknown> | null = null;
  for (const k of Object.keys(m)) {
    const v = m[k];
    if (KNOWN_KEYS.has(k) || v === undefined) continue;
    (extraObj ??= {})[k] = v;
  }
  if (extraObj) extraObj = redactDeep(redactor, extraObj, found);

  const message: Record<string, unknown> = { role, content };
  if (name !== null) message.name = name;
  if (calls.length) message.tool_calls = calls;
  if (toolCallId !== null) message.tool_call_id = toolCallId;
  if (extraObj) Object.assign(message, extraObj, { role, content });

  // One-shot hashing to hex (no Hash object, and no Buffer of its own per message: a small Buffer.from
  // comes from the shared pool).
  const hashHex = oneShotHash("sha256", `${role}\u0000${canonicalContent}\u0000${name ?? ""}\u0000${toolCallId ?? ""}\u0000${canonicalCalls}`, "hex").slice(0, 16);
  const hash = Buffer.from(hashHex, "hex");
  // The same message whatever ids a host gave its tool calls (hosts rewrite them when they compact).
  const looseHex = oneShotHash("sha256", `${role}\u0000${canonicalContent}\u0000${name ?? ""}\u0000${looseCalls}`, "hex").slice(0, 16);

  const searchText = callText ? text + callText : text;
  return {
    role,
    text,
    shape,
    name,
    toolCallId,
    extra: extraObj ? JSON.stringify(extraObj) : null,
    parts,
    searchText,
    toolCallIds,
    message: message as Message,
    hash,
    hashHex,
    looseHex,
    redacted: Object.keys(found).length > 0,
    redactions: found,
    hasCjk: CJK_RE.test(searchText),
  };
}

/** A stored row, as read. */
export interface MessageRow {
  id: number;
  conversation_id: number;
  seq: number;
  role: Role;
  text: string | null;
  payload: string | null;
  shape: Shape;
  name: string | null;
  tool_call_id: string | null;
  extra: string | null;
  tokens: number;
  created_at: number;
  hash: Buffer;
  flags: number;
}

export interface PartRow {
  message_id: number;
  kind: PartKind;
  ordinal: number;
  call_id: string | null;
  name: string | null;
  body: string | null;
  payload: string | null;
  span: number | null;
  extra: string | null;
}

/** Row flags. */
export const FLAG_HAS_PARTS = 1;
export const FLAG_REDACTED = 2;
export const FLAG_CJK = 4;

/** Rebuild the OpenAI message from its row, its parts and resolved payload texts. */
export function decodeMessage(row: MessageRow, text: string, parts: readonly (PartRow & { resolvedBody: string | null })[]): {
  message: Message;
  toolCallIds: string[];
  callText: string;
} {
  let content: unknown;
  if (row.shape === Shape.String) content = text;
  else if (row.shape === Shape.Null) content = null;
  else {
    const list: Array<{ ordinal: number; value: unknown }> = [];
    let offset = 0;
    for (const p of parts) {
      if (p.kind === PartKind.Text) {
        const span = p.span ?? 0;
        const t = text.slice(offset, offset + span);
        offset += span + 1;
        list.push({ ordinal: p.ordinal, value: { type: "text", text: t, ...(p.extra ? (JSON.parse(p.extra) as object) : {}) } });
      } else if (p.kind === PartKind.Other) {
        list.push({ ordinal: p.ordinal, value: JSON.parse(p.resolvedBody ?? "null") });
      }
    }
    list.sort((a, b) => a.ordinal - b.ordinal);
    content = list.map((x) => x.value);
  }
  const message: Record<string, unknown> = { role: row.role, content };
  if (row.name !== null) message.name = row.name;
  const calls: unknown[] = [];
  const toolCallIds: string[] = [];
  let callText = "";
  for (const p of parts) {
    if (p.kind !== PartKind.ToolCall) continue;
    const extra = p.extra ? (JSON.parse(p.extra) as { r?: Record<string, unknown>; f?: Record<string, unknown> }) : null;
    const args = p.resolvedBody ?? "";
    calls.push({
      ...(extra?.r ?? {}),
      id: p.call_id ?? "",
      type: "function",
      function: { ...(extra?.f ?? {}), name: p.name ?? "", arguments: args },
    });
    toolCallIds.push(p.call_id ?? "");
    callText += `\n${p.name ?? ""} ${args}`;
  }
  if (calls.length) message.tool_calls = calls;
  if (row.tool_call_id !== null) message.tool_call_id = row.tool_call_id;
  if (row.extra) Object.assign(message, JSON.parse(row.extra) as object, { role: row.role, content });
  return { message: message as Message, toolCallIds, callText };
}
