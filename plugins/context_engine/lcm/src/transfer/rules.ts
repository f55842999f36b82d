import type { z } from "zod";

/**
 * The rules of an export document that span fields, checked before an import
 * writes anything (each refusal names the offending field):
 *
 * - tool pairing: a tool result answers a call made by an earlier assistant
 *   message, once; call ids are unique in the whole conversation; every call
 *   is answered before the next message that is not a tool result (only the
 *   calls of the conversation's last assistant message may still be open).
 *   A store keeps what a host sends, also a call cut short (no result before
 *   the next turn), a reused id or a result without its call: an export marks
 *   each such message `unpaired: true`, and only a marked message may break
 *   these rules (a marked one that pairs is refused too), so what a store
 *   kept imports again and nothing else slips through;
 * - leaves (depth 0) cover messages of this conversation, ascending, without
 *   repeats, and have no children;
 * - condensed summaries cover earlier summaries (so lineage is a DAG of this
 *   document's own summaries), in conversation order, without repeats, one
 *   level above their deepest child (the depth compaction gives them);
 * - summaries come in the order an export writes them (depth, then span, then
 *   time, content): children before parents, and the same document back;
 * - no two summaries are the same summary (a store keeps one);
 * - the frontier names existing items, each once, in conversation order,
 *   without overlapping spans; a conversation with messages has an active
 *   context, and it reaches the newest message.
 */
interface DocShape {
  messages: Array<{ message: Record<string, unknown>; unpaired?: true | undefined }>;
  summaries: Array<{
    kind: "leaf" | "condensed";
    depth: number;
    content: string;
    createdAt: number;
    messages?: number[] | undefined;
    children?: number[] | undefined;
  }>;
  frontier: Array<{ message: number } | { summary: number }>;
}

type Ctx = z.core.$RefinementCtx<DocShape>;
type Span = { first: number; last: number };

function issue(ctx: Ctx, path: Array<string | number>, message: string): void {
  ctx.addIssue({ code: "custom", path, message });
}

/** Record an issue and answer null (no span for an invalid summary). */
function refuse(ctx: Ctx, path: Array<string | number>, message: string): null {
  issue(ctx, path, message);
  return null;
}

export function checkDocumentRules(doc: DocShape, ctx: Ctx): void {
  checkToolPairing(doc, ctx);
  const spans = checkSummaries(doc, ctx);
  if (spans) checkFrontier(doc, spans, ctx);
}

/** Where a message breaks the pairing rules: the field and what is wrong. */
export interface PairingIssue {
  path: Array<string | number>;
  message: string;
}

/** The pairing rules' findings, by message position (each finding belongs to the message that breaks the rule). */
export function pairingIssues(messages: ReadonlyArray<Record<string, unknown>>): Map<number, PairingIssue[]> {
  const found = new Map<number, PairingIssue[]>();
  const add = (i: number, path: Array<string | number>, message: string) => {
    const list = found.get(i) ?? [];
    list.push({ path: ["messages", i, "message", ...path], message });
    found.set(i, list);
  };
  const callAt = new Map<string, number>();
  const answered = new Set<string>();
  /** Calls of the latest assistant message still waiting for a result: [id, message index, call index]. */
  let open: Array<[string, number, number]> = [];
  const closeOpen = () => {
    for (const [id, i, k] of open) if (!answered.has(id)) add(i, ["tool_calls", k, "id"], `call ${JSON.stringify(id)} has no tool result before the next message`);
    open = [];
  };
  messages.forEach((message, i) => {
    if (message.role === "tool") {
      const id = message.tool_call_id as string;
      if (!callAt.has(id)) add(i, ["tool_call_id"], `answers call ${JSON.stringify(id)}, which no earlier assistant message makes`);
      else if (answered.has(id)) add(i, ["tool_call_id"], `answers call ${JSON.stringify(id)} a second time`);
      answered.add(id);
      return;
    }
    closeOpen();
    const calls = message.tool_calls as Array<{ id: string }> | undefined;
    calls?.forEach((c, k) => {
      const earlier = callAt.get(c.id);
      if (earlier === i) add(i, ["tool_calls", k, "id"], `call id ${JSON.stringify(c.id)} appears twice in this message`);
      else if (earlier !== undefined) add(i, ["tool_calls", k, "id"], `call id ${JSON.stringify(c.id)} is already used by messages.${earlier}`);
      else open.push([c.id, i, k]);
      callAt.set(c.id, i);
    });
  });
  // The conversation may end while its last calls run: those stay open.
  return found;
}

function checkToolPairing(doc: DocShape, ctx: Ctx): void {
  const found = pairingIssues(doc.messages.map((m) => m.message));
  doc.messages.forEach((entry, i) => {
    const issues = found.get(i);
    if (entry.unpaired && !issues) issue(ctx, ["messages", i, "unpaired"], "marked unpaired, but its tool calls and results pair (leave the mark out)");
    if (entry.unpaired || !issues) return;
    // Only an export's mark says the store kept a message this way.
    for (const p of issues) issue(ctx, p.path, `${p.message} (a message kept this way is marked unpaired: true)`);
  });
}

/** Seq spans of every summary, or null when a rule failed (the frontier check needs them). */
function checkSummaries(doc: DocShape, ctx: Ctx): Span[] | null {
  const spans: Span[] = [];
  const identities = new Map<string, number>();
  let ok = true;
  doc.summaries.forEach((s, k) => {
    const span = s.kind === "leaf" ? checkLeaf(doc, s, k, ctx) : checkCondensed(doc, s, k, spans, ctx);
    if (!span) {
      ok = false;
      spans.push({ first: -1, last: -1 });
      return;
    }
    spans.push(span);
    const identity = JSON.stringify([s.kind, s.depth, s.content, s.messages ?? s.children]);
    const twin = identities.get(identity);
    if (twin !== undefined) {
      issue(ctx, ["summaries", k], `the same summary as summaries.${twin} (kind, depth, sources and content)`);
      ok = false;
    }
    identities.set(identity, k);
    if (k > 0 && spans[k - 1]!.first >= 0 && compareSummaries(doc.summaries[k - 1]!, spans[k - 1]!, s, span) > 0) {
      issue(ctx, ["summaries", k], "summaries in export order: by depth, then first and last message, then createdAt, then content");
      ok = false;
    }
  });
  return ok ? spans : null;
}

function checkLeaf(doc: DocShape, s: DocShape["summaries"][number], k: number, ctx: Ctx): Span | null {
  if (s.children !== undefined) return refuse(ctx, ["summaries", k, "children"], "a leaf covers messages, not summaries");
  if (s.depth !== 0) return refuse(ctx, ["summaries", k, "depth"], "0 for a leaf");
  const positions = s.messages ?? [];
  if (positions.length === 0) return refuse(ctx, ["summaries", k, "messages"], "a leaf covers at least one message");
  for (const [j, p] of positions.entries()) {
    if (p >= doc.messages.length) return refuse(ctx, ["summaries", k, "messages", j], `message ${p} is not in this conversation (${doc.messages.length} messages)`);
    if (j > 0 && p <= positions[j - 1]!) return refuse(ctx, ["summaries", k, "messages", j], "message positions ascending, each once");
  }
  return { first: positions[0]!, last: positions[positions.length - 1]! };
}

function checkCondensed(doc: DocShape, s: DocShape["summaries"][number], k: number, spans: Span[], ctx: Ctx): Span | null {
  if (s.messages !== undefined) return refuse(ctx, ["summaries", k, "messages"], "a condensed summary covers summaries, not messages");
  const children = s.children ?? [];
  if (children.length === 0) return refuse(ctx, ["summaries", k, "children"], "a condensed summary covers at least one summary");
  let first = Number.POSITIVE_INFINITY;
  let last = -1;
  let deepest = -1;
  for (const [j, c] of children.entries()) {
    if (c >= k) return refuse(ctx, ["summaries", k, "children", j], `summary ${c} must come earlier in summaries (children before parents)`);
    const span = spans[c]!;
    if (span.first < 0) return refuse(ctx, ["summaries", k, "children", j], `summary ${c} is itself invalid`);
    if (j > 0 && span.first <= spans[children[j - 1]!]!.first) return refuse(ctx, ["summaries", k, "children", j], "children in conversation order, each once");
    if (doc.summaries[c]!.depth >= s.depth) return refuse(ctx, ["summaries", k, "depth"], `deeper than every child (summary ${c} has depth ${doc.summaries[c]!.depth})`);
    first = Math.min(first, span.first);
    last = Math.max(last, span.last);
    deepest = Math.max(deepest, doc.summaries[c]!.depth);
  }
  if (s.depth !== deepest + 1) return refuse(ctx, ["summaries", k, "depth"], `${deepest + 1}: one above its deepest child (compaction never skips a level)`);
  return { first, last };
}

/** The order `exportConversation` writes summaries in (independent of store ids). */
export function compareSummaries(a: DocShape["summaries"][number], sa: Span, b: DocShape["summaries"][number], sb: Span): number {
  return (
    a.depth - b.depth ||
    sa.first - sb.first ||
    sa.last - sb.last ||
    a.createdAt - b.createdAt ||
    (a.content < b.content ? -1 : a.content > b.content ? 1 : 0) ||
    (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) ||
    compareLists(a.messages ?? a.children ?? [], b.messages ?? b.children ?? [])
  );
}

function compareLists(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function checkFrontier(doc: DocShape, spans: Span[], ctx: Ctx): void {
  const newest = doc.messages.length - 1;
  if (newest >= 0 && doc.frontier.length === 0) return issue(ctx, ["frontier"], `an active context for the ${doc.messages.length} messages (it is empty)`);
  let last = -1;
  for (const [k, ref] of doc.frontier.entries()) {
    let span: Span;
    if ("message" in ref) {
      if (ref.message >= doc.messages.length) return issue(ctx, ["frontier", k, "message"], `message ${ref.message} is not in this conversation`);
      span = { first: ref.message, last: ref.message };
    } else {
      if (ref.summary >= doc.summaries.length) return issue(ctx, ["frontier", k, "summary"], `summary ${ref.summary} is not in this document`);
      span = spans[ref.summary]!;
    }
    if (span.first <= last) return issue(ctx, ["frontier", k], "items in conversation order, without overlapping another item");
    last = span.last;
  }
  if (last !== newest) issue(ctx, ["frontier", doc.frontier.length - 1], `an active context that reaches the newest message (${newest}); it ends at ${last}`);
}
