import { acceptSelection, defaultTokenCounter, overridesHook } from "@context-engine/core";
import type { ContextEngine, Logger, Message } from "@context-engine/core";
import { assembleInputBudget } from "./budget.js";
import { assistantTemplateOf, fromOpenAiMessages } from "./convert-from-openai.js";
import { fingerprint, toOpenAiMessages } from "./convert-to-openai.js";
import type { OriginIndex } from "./convert-to-openai.js";
import { estimateAgentTokens } from "./estimate.js";
import { fitToCount } from "./fit.js";
import { acceptMessages, bounded, guarded } from "./guard.js";
import type { OcAgentMessage, OcAssembleParams, OcAssembleResult } from "./openclaw-types.js";
import type { AssembledOutput, SessionEntry } from "./sessions.js";
import { trace, traceList, tracing } from "./trace.js";

export interface AssembleDeps {
  timeoutMs: number;
  logger: Logger;
  /** The engine keeps the session's history in a store other processes share: assemble it once per process. */
  historyFromEngine: boolean;
}

/** The unmodified host messages: what OpenClaw sends when the engine decides nothing (or fails). */
function passThrough(messages: OcAgentMessage[]): OcAssembleResult {
  return { messages, estimatedTokens: estimateAgentTokens(messages) };
}

export interface Working {
  working: Message[];
  origins: OriginIndex;
  /** OpenClaw's own transcript the working list stands for (converted): what a compaction result covers. */
  hostConverted: Message[];
  /** The host list began with what the last assemble returned (OpenClaw's next step of the same run). */
  own: boolean;
  /** The host list holds a message the engine made: a view of ours (reshaped by OpenClaw), not its transcript. */
  holdsOurs: boolean;
}

function startsWith(list: readonly Message[], prefix: readonly string[]): boolean {
  if (prefix.length === 0 || list.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (fingerprint(list[i]!) !== prefix[i]) return false;
  return true;
}

/**
 * Build the working list. OpenClaw hands back what the last assemble returned
 * (plus the step's new messages) on its next model call: that list is already
 * the engine's view. Otherwise the engine's compacted view (if any) plus the
 * host messages after what it covers; a host transcript that no longer extends
 * the covered prefix (rewritten elsewhere) drops the view.
 */
export function workingList(entry: SessionEntry, host: readonly OcAgentMessage[]): Working {
  const converted = toOpenAiMessages(host);
  const { messages, origins } = converted;
  for (const output of entry.outputs) {
    if (!startsWith(messages, output.fingerprints)) continue;
    const added = messages.slice(output.fingerprints.length);
    return { working: messages, origins, hostConverted: [...output.standsFor, ...added], own: true, holdsOurs: true };
  }
  // A list that is not ours: OpenClaw's transcript at a turn start. Earlier outputs belong to finished runs.
  const holdsOurs = holdsEngineMessages(entry.outputs, messages);
  entry.outputs = [];
  if (entry.view && host.length >= entry.coveredCount) {
    const last = messages[entry.coveredCount - 1];
    if (entry.coveredCount === 0 || (last && fingerprint(last) === entry.coveredFingerprint)) {
      const rest = messages.slice(entry.coveredCount);
      // A view assembled from a shared store can already hold what the host's list adds after the count it
      // covers (a turn committed before this process's transcript showed it): that overlap goes in once.
      const known = overlapOf(entry.view, rest);
      if (tracing) trace("splice", { view: traceList(entry.view), covered: entry.coveredCount, rest: traceList(rest), known });
      return { working: [...entry.view, ...rest.slice(known)], origins, hostConverted: messages, own: false, holdsOurs };
    }
  }
  entry.view = null;
  entry.coveredCount = 0;
  return { working: messages, origins, hostConverted: messages, own: false, holdsOurs };
}

/**
 * The longest run at the start of `rest` that is also the end of `view`. An engine may show a stored
 * message reshaped (LCM shows a large message by its head and tail, with a pointer to the original), so
 * a view message stands for a host message when both are the same message or it is such a copy of it.
 */
export function overlapOf(view: readonly Message[], rest: readonly Message[]): number {
  for (let k = Math.min(view.length, rest.length); k > 0; k--) {
    let same = true;
    for (let j = 0; j < k && same; j++) same = standsFor(view[view.length - k + j]!, rest[j]!);
    if (same) return k;
  }
  return 0;
}

/** Head a shortened copy keeps of a long message: enough that two different long messages do not share it. */
const COPY_HEAD_CHARS = 200;

/**
 * Whether the engine's `shown` message is host message `original`: the same message, or a shortened copy
 * of a long one (same role and tool-call ids, begins with the original's first 200 characters, shorter).
 */
export function standsFor(shown: Message, original: Message): boolean {
  if (fingerprint(shown) === fingerprint(original)) return true;
  if (shown.role !== original.role || toolIdsOf(shown) !== toolIdsOf(original)) return false;
  const long = plainText(original);
  const short = plainText(shown);
  return long.length > COPY_HEAD_CHARS && short.length < long.length && short.startsWith(long.slice(0, COPY_HEAD_CHARS));
}

function toolIdsOf(m: Message): string {
  const calls = (m as { tool_calls?: { id?: string }[] }).tool_calls;
  const result = (m as { tool_call_id?: string }).tool_call_id ?? "";
  return `${result}|${Array.isArray(calls) ? calls.map((c) => c?.id ?? "").join(",") : ""}`;
}

function plainText(m: Message): string {
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") return c;
  return Array.isArray(c) ? c.map((p) => ((p as { type?: string; text?: string })?.type === "text" ? (p as { text: string }).text : "")).join("\n") : "";
}

/** Whether `messages` holds a message the engine made (in an earlier result, not in the host list it stood for). */
function holdsEngineMessages(outputs: readonly AssembledOutput[], messages: readonly Message[]): boolean {
  const made = new Set<string>();
  for (const output of outputs) {
    const fromHost = new Set(output.standsFor.map(fingerprint));
    for (const f of output.fingerprints) if (!fromHost.has(f)) made.add(f);
  }
  return made.size > 0 && messages.some((m) => made.has(fingerprint(m)));
}

const MAX_OUTPUTS = 8;

/** Keep a returned list (newest first, a few per run): OpenClaw's later steps extend one of them. */
function rememberOutput(entry: SessionEntry, output: AssembledOutput): void {
  entry.outputs = [output, ...entry.outputs.filter((o) => o.fingerprints.join("\n") !== output.fingerprints.join("\n"))].slice(0, MAX_OUTPUTS);
}

/** Record `messages` as the engine's view of the host transcript `hostConverted`. */
export function adoptView(entry: SessionEntry, messages: Message[], hostConverted: readonly Message[]): void {
  entry.view = messages;
  entry.coveredCount = hostConverted.length;
  const last = hostConverted[hostConverted.length - 1];
  entry.coveredFingerprint = last ? fingerprint(last) : "";
}

/**
 * The budget an assemble is fitted to. OpenClaw computes it as window − its compaction reserve (16k by
 * default) − its prompt, floored at 1: on a small window that is "no room by my reserve policy", not
 * room for a few tokens of history. A budget under 5 % of the model's window (or 512 tokens) is such a
 * sentinel; then the engine's own threshold on the window decides, and history is not thrown away.
 */
export function fitBudget(given: unknown, window: number | undefined): number | undefined {
  if (typeof given !== "number" || !Number.isFinite(given) || given <= 0) return undefined;
  const floor = Math.max(512, Math.floor((window ?? 0) * 0.05));
  return given < floor ? undefined : given;
}

interface CompressOnceOptions {
  force?: boolean;
  tokens?: number | undefined;
  sessionId: string;
  /** The turn's own request (turn-start assemble): OpenClaw appends it after the list. */
  incoming?: Message | undefined;
  /** The input budget this request has (`assembleInputBudget`). */
  budgetTokens: number;
}

/** The turn's request as the engine sees it: OpenClaw passes its text as `prompt` to the turn-start assemble only. */
function incomingOf(params: OcAssembleParams): Message | undefined {
  return typeof params.prompt === "string" && params.prompt ? { role: "user", content: params.prompt } : undefined;
}

/** One bounded `compress` on a copy; the accepted result, or null when it changed nothing or was refused. */
async function compressOnce(engine: ContextEngine, working: Message[], options: CompressOnceOptions, deps: AssembleDeps): Promise<Message[] | null> {
  const given = structuredClone(working);
  const outcome = await bounded("compress", deps.timeoutMs, deps.logger, (signal) =>
    engine.compress(given, {
      signal,
      sessionId: options.sessionId,
      ...(options.force ? { force: true } : {}),
      ...(options.incoming ? { incomingMessage: structuredClone(options.incoming) } : {}),
      ...(options.tokens !== undefined ? { currentTokens: options.tokens } : {}),
      ...(options.budgetTokens > 0 ? { budgetTokens: options.budgetTokens } : {}),
    }),
  );
  const checked = outcome.ok ? acceptMessages(working, outcome.value) : null;
  if (tracing) trace("compress", { force: options.force === true, given: traceList(working), returned: outcome.ok && Array.isArray(outcome.value) ? traceList(outcome.value) : null });
  if (checked && !checked.ok) deps.logger.warn(`[context-engine/openclaw] compress result rejected: ${checked.reason}`);
  return checked?.ok && !sameMessages(checked.value, working) ? checked.value : null;
}

/**
 * One OpenClaw `assemble`: the engine compacts when its own threshold (on the
 * model's window) says so or when the list does not fit the budget this call
 * gives, then `selectContext` fits the request to that budget. An engine whose
 * store is shared assembles its stored history once per process, so a session
 * continued from another OpenClaw home gets it too.
 */
export async function assembleWithEngine(entry: SessionEntry, params: OcAssembleParams, deps: AssembleDeps): Promise<OcAssembleResult> {
  const host = params.messages;
  if (!Array.isArray(host)) return { messages: [], estimatedTokens: 0 };
  const engine = entry.engine;
  entry.lastHost = host;
  // The turn-start assemble (the one with the turn's prompt) is fenced before the turn's user entry: its
  // list is the history the turn's commit builds on. OpenClaw calls it twice with the prompt; the second
  // call gets our own first result back, which is a view, not the history (see `noteTurnStart`).
  const turnStart = params.prompt !== undefined;
  const budget = fitBudget(params.tokenBudget, entry.window);
  const budgetTokens = assembleInputBudget(engine, budget, entry.window ?? engine.contextLength, params.runtimeSettings);
  const tokens = params.runtimeContext?.currentTokenCount ?? (engine.lastPromptTokens > 0 ? engine.lastPromptTokens : undefined);
  const wantsCompress = guarded("shouldCompress", deps.logger, () => engine.shouldCompress(tokens));
  const compress = wantsCompress.ok && wantsCompress.value === true;
  const selects = overridesHook(engine, "selectContext");
  const seed = deps.historyFromEngine && !entry.seeded;
  // The no-op path: nothing to convert, OpenClaw keeps its own list object.
  if (!compress && !selects && !entry.view && entry.outputs.length === 0 && !seed && (budget === undefined || estimateAgentTokens(host) <= budget)) {
    if (turnStart) noteTurnStart(entry, host, params.prompt);
    return passThrough(host);
  }

  const { working, origins, hostConverted, own, holdsOurs } = workingList(entry, host);
  if (turnStart && !own && !holdsOurs) noteTurnStart(entry, host, params.prompt);
  let current = working;
  if (tracing) trace("assemble", { session: entry.sessionId, budget, turnStart, own, holdsOurs, host: traceList(toOpenAiMessages(host).messages), working: traceList(working) });
  if (seed && !own) {
    entry.seeded = true;
    // The engine's stored history for this session (its compress assembles from its store).
    const stored = await compressOnce(engine, current, { sessionId: entry.sessionId, incoming: incomingOf(params), budgetTokens }, deps);
    if (stored) {
      current = stored;
      adoptView(entry, current, hostConverted);
    }
  }
  const over = budget !== undefined && defaultTokenCounter.countMessages(current) > budget;
  if (compress || (over && !selects)) {
    const before = current;
    const options = { tokens, sessionId: entry.sessionId, force: over && !compress, incoming: incomingOf(params), budgetTokens };
    let compacted = await compressOnce(engine, before, options, deps);
    // An engine that fits by compressing alone: its result fits the budget as the adapter counts it too.
    if (compacted && !selects && budget !== undefined) {
      const first = compacted;
      compacted = await fitToCount(first, budgetTokens, (target) => compressOnce(engine, before, { ...options, force: true, budgetTokens: target }, deps));
    }
    if (compacted) {
      current = compacted;
      adoptView(entry, current, hostConverted);
    }
  }
  if (selects) {
    const before = current;
    current = await fitToCount(await select(entry, before, params, budgetTokens, deps), budgetTokens, (target) => select(entry, before, params, target, deps));
  }
  if (current === hostConverted || sameMessages(current, toOpenAiMessages(host).messages)) {
    // Unchanged: OpenClaw's next step extends this same list (still ours when it began with an earlier output).
    return passThrough(host);
  }
  if (tracing) trace("assembled", { session: entry.sessionId, result: traceList(current), tokens: defaultTokenCounter.countMessages(current) });
  const back = fromOpenAiMessages(current, origins, assistantTemplateOf(host));
  rememberOutput(entry, { fingerprints: toOpenAiMessages(back.messages).messages.map(fingerprint), standsFor: hostConverted });
  const result: OcAssembleResult = { messages: back.messages, estimatedTokens: defaultTokenCounter.countMessages(current) };
  if (back.systemText) result.systemPromptAddition = back.systemText;
  return result;
}

/**
 * The history a turn's commit builds on: OpenClaw's own transcript as the turn-start assemble got it.
 * A list that extends one of our earlier results (OpenClaw's second turn-start call) is our view, with
 * the engine's notes in it: a commit built on it would hand the engine a history that never was.
 */
function noteTurnStart(entry: SessionEntry, host: readonly OcAgentMessage[], prompt: string | undefined): void {
  entry.turnHistory = host;
  entry.lastPrompt = prompt;
}

/** `selectContext` for this request, on its input budget (`assembleInputBudget`); the checked result. */
async function select(entry: SessionEntry, current: Message[], params: OcAssembleParams, budgetTokens: number, deps: AssembleDeps): Promise<Message[]> {
  const engine = entry.engine;
  const incoming = incomingOf(params);
  const outcome = await bounded("selectContext", deps.timeoutMs, deps.logger, () =>
    engine.selectContext(structuredClone(current), {
      conversationMessages: structuredClone(current),
      budgetTokens,
      sessionId: entry.sessionId,
      // The turn's own request: OpenClaw appends it after assemble, so it is not in the list.
      ...(incoming ? { incomingMessage: incoming } : {}),
    }),
  );
  // null, undefined, [] and non-message items fall open silently (the contract's "no selection"); anything else is checked.
  const chosen = outcome.ok ? guarded("selectContext result", deps.logger, () => acceptSelection(current, outcome.value)) : null;
  if (!chosen?.ok || chosen.value === current) return current;
  const checked = acceptMessages(current, chosen.value);
  if (!checked.ok) {
    deps.logger.warn(`[context-engine/openclaw] selectContext result rejected: ${checked.reason}`);
    return current;
  }
  return checked.value;
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (fingerprint(a[i]!) !== fingerprint(b[i]!)) return false;
  return true;
}
