import type { ContextEngine, Message } from "@context-engine/core";
import { overridesHook } from "@context-engine/core";
import { acceptList, attempt, guarded } from "./guard.js";

export type AdapterEvent =
  | { type: "compressed"; before: number; after: number }
  | { type: "selected"; messages: number }
  | { type: "engine-error"; where: string; reason: string }
  /** The main engine failed in this request; the fallback engine decided it instead. */
  | { type: "fallback"; engine: string; reason: string };

export interface StepOptions {
  timeoutMs: number;
  /** Decides the request when the main engine fails in it (e.g. the compressor in front of LCM). */
  fallback?: ContextEngine;
  sessionId?: string;
  onEvent?: (event: AdapterEvent) => void;
  /**
   * The input budget the model call will have (`budgetTokens`): the window less the call's output
   * reserve and its tool definitions (see `callInputBudget`); 0 or absent when unknown.
   */
  budgetTokens?: number;
}

export interface StepDecision {
  /** The conversation to keep (compacted when the engine compressed). */
  history: Message[];
  /** What this one request sends (the engine's selection, or `history`). */
  request: Message[];
  compressed: boolean;
}

/**
 * One request's engine pass: `shouldCompress` → `compress` → `selectContext`,
 * each fail-open. A throw, a hang past the timeout or an invalid list leaves
 * the messages as they were. Null when the engine had nothing to decide.
 */
export interface StepPlan {
  compress: boolean;
  selects: boolean;
  /** shouldCompress threw: the step needs the fallback engine, if there is one. */
  failed: boolean;
}

/** The synchronous part: does the engine want to compress, does it select? (Asked once per request.) */
export function planEngineStep(engine: ContextEngine, options: StepOptions): StepPlan {
  const should = attempt(() => engine.shouldCompress(engine.lastPromptTokens > 0 ? engine.lastPromptTokens : undefined));
  if (!should.ok) options.onEvent?.({ type: "engine-error", where: "shouldCompress", reason: should.reason });
  return { compress: should.ok && should.value === true, selects: overridesHook(engine, "selectContext"), failed: !should.ok };
}

export async function runEngineStep(
  engine: ContextEngine,
  view: () => Message[],
  options: StepOptions,
  plan: StepPlan = planEngineStep(engine, options),
): Promise<StepDecision | null> {
  let failure: string | null = plan.failed ? "shouldCompress failed" : null;
  const fail = (where: string, reason: string) => {
    failure ??= `${where} failed: ${reason}`;
    options.onEvent?.({ type: "engine-error", where, reason });
  };
  const decision = await decideWith(engine, view, options, plan, fail);
  const { fallback } = options;
  if (failure === null || !fallback) return decision;
  // A broken engine must not leave an over-long request as it is when another engine can shorten it.
  options.onEvent?.({ type: "fallback", engine: engineName(fallback), reason: failure });
  const rescue = await runEngineStep(fallback, view, { ...options, fallback: undefined });
  return rescue ?? decision;
}

async function decideWith(
  engine: ContextEngine,
  view: () => Message[],
  options: StepOptions,
  plan: StepPlan,
  fail: (where: string, reason: string) => void,
): Promise<StepDecision | null> {
  const { compress, selects } = plan;
  // Nothing to decide: the messages are not even converted (the no-op path costs next to nothing).
  if (!compress && !selects) return null;
  const history = view();
  let kept = history;
  let compressed = false;
  if (compress) {
    // compress may edit its input in place (legacy contract): it gets its own copy.
    const input = structuredClone(history);
    const outcome = await guarded(options.timeoutMs, async (signal) => {
      const returned = await engine.compress(input, {
        currentTokens: engine.lastPromptTokens > 0 ? engine.lastPromptTokens : undefined,
        signal,
        sessionId: options.sessionId,
        ...(options.budgetTokens ? { budgetTokens: options.budgetTokens } : {}),
      });
      return returned === input ? null : acceptList(returned);
    });
    const accepted = outcome.ok ? outcome.value : { ok: false as const, reason: outcome.reason };
    if (accepted && !accepted.ok) fail("compress", accepted.reason);
    else if (accepted) {
      kept = accepted.messages;
      compressed = true;
      options.onEvent?.({ type: "compressed", before: history.length, after: kept.length });
    }
  }
  let request = kept;
  if (selects) {
    // Request-only by contract: one copy serves as both the request and the conversation.
    const given = structuredClone(kept);
    const outcome = await guarded(options.timeoutMs, async () => {
      const returned = await engine.selectContext(given, {
        conversationMessages: given,
        incomingMessage: lastUser(given),
        budgetTokens: options.budgetTokens ?? 0,
        sessionId: options.sessionId,
      });
      return returned === null || returned === undefined ? null : acceptList(returned);
    });
    const accepted = outcome.ok ? outcome.value : { ok: false as const, reason: outcome.reason };
    if (accepted && !accepted.ok) fail("selectContext", accepted.reason);
    else if (accepted) {
      request = accepted.messages;
      options.onEvent?.({ type: "selected", messages: request.length });
    }
  }
  return { history: kept, request, compressed };
}

function engineName(engine: ContextEngine): string {
  const named = attempt(() => engine.name);
  return named.ok && typeof named.value === "string" ? named.value : "fallback";
}

function lastUser(messages: Message[]): Message | null {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return messages[i] as Message;
  return null;
}
