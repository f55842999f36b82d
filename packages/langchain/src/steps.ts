import type { ContextEngine, Message } from "@context-engine/core";
import { ContextEngine as BaseEngine, checkConversation, lastUserMessage, overridesHook } from "@context-engine/core";
import { SystemMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { bounded, guarded } from "./bounded.js";
import { MessageCodec } from "./convert/codec.js";
import { fromOpenAIMessage } from "./convert/from-openai.js";
import { toOpenAIMessage } from "./convert/to-openai.js";
import type { AdapterEventSink } from "./events.js";
import type { SessionState } from "./sessions.js";
import { acceptReturned } from "./validate.js";

export interface StepDeps {
  emit: AdapterEventSink;
  compressTimeoutMs: number;
  selectTimeoutMs: number;
  /** The request's input budget (`budgetTokens`, see `requestInputBudget`); 0 or absent when unknown. */
  budgetTokens?: number;
}

/** The engine's system head for a request: the system message, when it has any text. */
function systemHead(system: SystemMessage | null): Message[] {
  if (!system || system.text === "") return [];
  const converted = toOpenAIMessage(system);
  return converted ? [converted] : [];
}

/**
 * Whether the engine may want to compact now, decided without awaiting:
 * `true` (shouldCompress said so), `false` (no, and no preflight to ask) or
 * `"preflight"` (ask the engine's own preflight). Anything but `true` is no.
 */
export function compactionHint(session: SessionState, deps: StepDeps): boolean | "preflight" {
  const { engine } = session;
  const decision = guarded(() => engine.shouldCompress(), false);
  if (decision.error) deps.emit({ type: "hook.failed", sessionId: session.id, hook: "shouldCompress", error: decision.error });
  if (decision.value === true) return true;
  // The base class's preflight always says no; skip building the list for it.
  return engine.shouldCompressPreflight === BaseEngine.prototype.shouldCompressPreflight ? false : "preflight";
}

async function preflightSaysYes(engine: ContextEngine, messages: () => Message[], session: SessionState, deps: StepDeps): Promise<boolean> {
  const preflight = await bounded(() => engine.shouldCompressPreflight(messages()), deps.selectTimeoutMs);
  if (!preflight.ok) deps.emit({ type: "hook.failed", sessionId: session.id, hook: "shouldCompressPreflight", error: preflight.error });
  return preflight.ok && preflight.value === true;
}

/**
 * Before a model call: ask the engine whether to compact and, when it does,
 * return the compacted history to persist in the agent's state (null: leave
 * the state alone). Any failure leaves the history untouched.
 */
export async function compactionStep(
  session: SessionState,
  hint: true | "preflight",
  history: readonly BaseMessage[],
  signal: AbortSignal | undefined,
  deps: StepDeps,
): Promise<BaseMessage[] | null> {
  const { engine } = session;
  const codec = new MessageCodec();
  let given: Message[] | null = null;
  const build = () => (given ??= [...systemHead(session.systemMessage), ...codec.toOpenAI(history)]);
  if (hint === "preflight" && !(await preflightSaysYes(engine, build, session, deps))) return null;
  const input = build();
  // compress may edit its input in place (legacy contract): remember it as text, not as a second copy.
  const snapshot = JSON.stringify(input);
  const givenProblems = checkConversation(input).length;
  const currentTokens = engine.lastPromptTokens > 0 ? engine.lastPromptTokens : undefined;
  const result = await bounded(
    (abort) =>
      engine.compress(input, {
        signal: abort,
        sessionId: session.id,
        ...(currentTokens ? { currentTokens } : {}),
        ...(deps.budgetTokens ? { budgetTokens: deps.budgetTokens } : {}),
      }),
    deps.compressTimeoutMs,
    signal,
  );
  if (!result.ok) {
    deps.emit({ type: "compaction.failed", sessionId: session.id, error: result.error, timedOut: result.timedOut });
    return null;
  }
  // Copied and validated before anything reads it: a hostile value becomes an event, never an exception.
  const accepted = acceptReturned(result.value, givenProblems);
  if (!accepted.ok) {
    deps.emit({ type: "compaction.failed", sessionId: session.id, error: `compress returned an unusable list: ${accepted.reason}`, timedOut: false });
    return null;
  }
  const compacted = accepted.messages;
  if (result.value === input && JSON.stringify(compacted) === snapshot) {
    deps.emit({ type: "compaction.unchanged", sessionId: session.id });
    return null;
  }
  const head = systemHead(session.systemMessage);
  // The agent owns its system prompt: a leading copy of it is not history.
  const body = head.length > 0 && JSON.stringify(compacted[0]) === JSON.stringify(head[0]) ? compacted.slice(1) : compacted;
  let messages: BaseMessage[];
  try {
    messages = codec.fromOpenAI(body);
  } catch (error) {
    deps.emit({ type: "compaction.failed", sessionId: session.id, error: `conversion failed: ${String(error)}`, timedOut: false });
    return null;
  }
  guarded(() => {
    // As the contract's host does: wait for real usage before deciding again.
    engine.lastPromptTokens = -1;
    engine.awaitingRealUsageAfterCompression = true;
  }, undefined);
  deps.emit({ type: "compaction.committed", sessionId: session.id, messagesBefore: history.length, messagesAfter: messages.length });
  return messages;
}

export interface Selection {
  systemMessage: SystemMessage;
  messages: BaseMessage[];
}

/**
 * For one model request: let the engine choose the messages (request-only).
 * Null means "send the request unchanged" (no hook, no-op, or any failure).
 */
export async function selectionStep(
  session: SessionState,
  systemMessage: SystemMessage,
  messages: readonly BaseMessage[],
  signal: AbortSignal | undefined,
  deps: StepDeps,
): Promise<Selection | null> {
  const { engine } = session;
  if (!overridesHook(engine, "selectContext")) return null;
  const codec = new MessageCodec();
  const head = systemHead(systemMessage);
  const request = [...head, ...codec.toOpenAI(messages)];
  // A fresh conversion, and request-only by contract: no copies. What is compared afterwards is kept as text.
  const headText = head.length > 0 ? JSON.stringify(head[0]) : null;
  const givenProblems = checkConversation(request).length;
  const result = await bounded(
    () =>
      engine.selectContext(request, {
        conversationMessages: request,
        incomingMessage: lastUserMessage(request)?.message ?? null,
        budgetTokens: deps.budgetTokens ?? 0,
        sessionId: session.id,
      }),
    deps.selectTimeoutMs,
    signal,
  );
  if (!result.ok) {
    deps.emit({ type: "selection.ignored", sessionId: session.id, reason: result.error, failed: true });
    return null;
  }
  if (result.value === null || result.value === undefined) return null;
  const accepted = acceptReturned(result.value, givenProblems);
  if (!accepted.ok) {
    deps.emit({ type: "selection.ignored", sessionId: session.id, reason: accepted.reason, failed: true });
    return null;
  }
  const selected = accepted.messages;
  try {
    const first = selected[0]!;
    const leadingSystem = first.role === "system" || first.role === "developer";
    const sys = !leadingSystem
      ? new SystemMessage("")
      : headText !== null && JSON.stringify(first) === headText
        ? systemMessage
        : (fromOpenAIMessage(first) as SystemMessage);
    const rest = codec.fromOpenAI(leadingSystem ? selected.slice(1) : selected);
    deps.emit({ type: "selection.applied", sessionId: session.id, messages: selected.length });
    return { systemMessage: sys, messages: rest };
  } catch (error) {
    deps.emit({ type: "selection.ignored", sessionId: session.id, reason: `conversion failed: ${String(error)}`, failed: true });
    return null;
  }
}
