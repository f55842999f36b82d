import type { Message } from "@context-engine/core";
import { ContextEngine, overridesHook } from "@context-engine/core";
import { attempt, guarded } from "./guard.js";
import { planEngineStep, runEngineStep } from "./engine-step.js";
import type { AdapterEvent, StepOptions, StepPlan } from "./engine-step.js";
import { convertFromOpenAI } from "./from-openai.js";
import { deepEqual } from "./json-safe.js";
import { engineTools } from "./tools.js";
import { callInputBudget, engineToolsTokens, toolSetTokens } from "./budget.js";
import { toOpenAIMessages } from "./to-openai.js";
import { asModel, asSdk } from "./types.js";
import type { ModelMessage, SdkMessage, SdkMessageLike } from "./types.js";
import type { ToolSet } from "ai";
import { toEngineUsage } from "./usage.js";

export interface ContextSessionOptions {
  sessionId?: string;
  /** Model name and window, passed to `updateModel` before the first step. */
  model?: string;
  contextLength?: number;
  /** Bound on every engine call (compress, selectContext, tools); default 30 s. */
  timeoutMs?: number;
  /** The system prompt, for SDK majors whose `prepareStep` does not receive it (ai@6). */
  instructions?: string;
  onEvent?: (event: AdapterEvent) => void;
  /**
   * An engine that decides a request when the main one fails in it (throws,
   * hangs, returns something unusable): e.g. `new ContextCompressor(...)` in
   * front of LCM, so a store that cannot open never lets an over-long request
   * through unshortened. It gets the same usage and model figures.
   */
  fallback?: ContextEngine;
  /**
   * For `budgetTokens` (what the model call will take): the `maxOutputTokens` you pass to the call, and
   * your own tools as you pass them (their schemas are counted; the engine's tools always are).
   */
  maxOutputTokens?: number;
  tools?: ToolSet;
}

interface StepLike {
  usage?: unknown;
}

/** What `prepareStep` reads from the SDK's call (any major's `ModelMessage` fits). */
export interface PrepareStepInput {
  stepNumber: number;
  steps: readonly StepLike[];
  messages: readonly SdkMessageLike[];
  instructions?: unknown;
}

export interface PrepareStepOutput {
  messages: ModelMessage[];
  instructions?: string;
  system?: string;
}

/** What `finish` reads from a `generateText` result (or an awaited `streamText` result). */
export interface FinishInput {
  steps?: readonly StepLike[] | PromiseLike<readonly StepLike[]>;
  responseMessages?: readonly SdkMessageLike[] | PromiseLike<readonly SdkMessageLike[]>;
  response?: { messages?: readonly SdkMessageLike[] } | PromiseLike<{ messages?: readonly SdkMessageLike[] }>;
  /** A value (generateText) or a promise of one (streamText). */
  totalUsage?: unknown;
}

/**
 * One conversation driven by an engine inside the AI SDK loop. Pass
 * `prepareStep` (and `onStepFinish`) to `generateText`/`streamText`, call
 * `finish(result)` after the call, and start the next turn from `history()`.
 */
export class ContextSession {
  readonly engine: ContextEngine;
  readonly #options: ContextSessionOptions;
  readonly #timeoutMs: number;
  /** The engine's conversation (OpenAI format), compacted when it compressed; `#pending` not yet appended. */
  #history: Message[] = [];
  /** Caller-side messages not converted yet: conversion waits until the engine needs the list. */
  #pending: SdkMessage[] = [];
  /** The caller-side messages `#history` stands for, in order. */
  #source: SdkMessage[] = [];
  /** `#history` as SDK messages, cached; null when stale. */
  #historySdk: SdkMessage[] | null = null;
  #diverged = false;
  #started: Promise<void> | null = null;
  #ready = false;
  readonly #fed = new WeakSet<object>();
  /** The SDK messages of the current call already absorbed (initial + responses so far). */
  #callKnown = 0;
  #callInitial = 0;
  /** The list the SDK sent at the last step (ours or its own), to find what a step added. */
  #lastSent: SdkMessage[] = [];
  #systemText: string | undefined;

  constructor(engine: ContextEngine, options: ContextSessionOptions = {}) {
    this.engine = engine;
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#systemText = options.instructions;
    this.prepareStep = this.prepareStep.bind(this);
    this.onStepFinish = this.onStepFinish.bind(this);
  }

  /** The conversation as the engine decided it, as SDK messages: start the next call from it. */
  history(): ModelMessage[] {
    if (!this.#diverged) return asModel([...this.#source]);
    this.#historySdk ??= convertFromOpenAI(this.#view()).filter((m, i) => !(i === 0 && m.role === "system" && this.#systemText !== undefined));
    return asModel([...this.#historySdk]);
  }

  /** The engine's conversation in OpenAI format (read-only copy). */
  engineMessages(): Message[] {
    return structuredClone(this.#view());
  }

  /** The engine's tools as AI SDK tools; merge them into the call's `tools`. */
  tools(): ToolSet {
    return engineTools(this.engine, {
      timeoutMs: this.#timeoutMs,
      messages: () => this.#view(),
      sessionId: this.#options.sessionId,
      onError: (where, reason) => this.#options.onEvent?.({ type: "engine-error", where, reason }),
    });
  }

  /**
   * The `prepareStep` callback. Synchronous when the engine has nothing to
   * decide (the common step), a promise when it compresses or selects.
   */
  prepareStep(input: PrepareStepInput): PrepareStepOutput | undefined | Promise<PrepareStepOutput | undefined> {
    if (!this.#ready) return this.#start().then(() => this.prepareStep(input));
    this.#feedSteps(input.steps);
    const messages = asSdk(input.messages);
    if (input.stepNumber === 0) this.#beginCall(messages, input.instructions);
    else this.#absorb(this.#stepAdditions(messages));
    const { sessionId, onEvent, fallback } = this.#options;
    const stepOptions: StepOptions = { timeoutMs: this.#timeoutMs, sessionId, onEvent, fallback, budgetTokens: this.#inputBudget() };
    const plan = planEngineStep(this.engine, stepOptions);
    if (!plan.compress && !plan.selects && !plan.failed && !this.#diverged) {
      this.#lastSent = messages;
      return undefined;
    }
    return this.#decide(input, plan, stepOptions);
  }

  #toolsTokens: number | null = null;
  /** The call's input budget: the window less `maxOutputTokens` and every tool schema the call sends. */
  #inputBudget(): number {
    this.#toolsTokens ??= engineToolsTokens(this.engine) + toolSetTokens(this.#options.tools);
    return callInputBudget(this.engine, this.#options.maxOutputTokens, this.#toolsTokens);
  }

  async #decide(input: PrepareStepInput, plan: StepPlan, stepOptions: StepOptions): Promise<PrepareStepOutput | undefined> {
    const decision = await runEngineStep(this.engine, () => this.#view(), stepOptions, plan);
    if (decision?.compressed) {
      // A copy: later steps append to it, and the list is the engine's.
      this.#history = [...decision.history];
      this.#historySdk = null;
      this.#diverged = true;
    }
    if (!this.#diverged && (!decision || decision.request === this.#history)) {
      this.#lastSent = asSdk(input.messages);
      return undefined;
    }
    return this.#toRequest(decision?.request ?? this.#view());
  }

  onStepFinish(step: StepLike): void {
    this.#feedSteps([step]);
  }

  /** After the call: record the final step's messages and usage, and tell the engine the turn is complete. */
  async finish(result: FinishInput): Promise<ModelMessage[]> {
    const steps = (await result.steps) ?? [];
    this.#feedSteps(steps);
    const all = asSdk((await result.responseMessages) ?? (await result.response)?.messages ?? []);
    const seen = this.#callKnown - this.#callInitial;
    this.#absorb(all.slice(seen));
    const totalUsage: unknown = await result.totalUsage;
    if (overridesHook(this.engine, "onTurnComplete")) {
      const outcome = await guarded(this.#timeoutMs, () =>
        this.engine.onTurnComplete(structuredClone(this.#view()), totalUsage ? toEngineUsage(totalUsage) : null, {
          sessionId: this.#options.sessionId,
          apiCallCount: steps.length,
        }),
      );
      if (!outcome.ok) this.#options.onEvent?.({ type: "engine-error", where: "onTurnComplete", reason: outcome.reason });
    }
    return this.history();
  }

  #start(): Promise<void> {
    this.#started ??= (async () => {
      const { sessionId = "ai-sdk", model, contextLength } = this.#options;
      // The inherited no-op needs no timer.
      if (this.engine.onSessionStart !== ContextEngine.prototype.onSessionStart) {
        const start = await guarded(this.#timeoutMs, () => this.engine.onSessionStart(sessionId, { platform: "ai-sdk", model, contextLength }));
        if (!start.ok) this.#options.onEvent?.({ type: "engine-error", where: "onSessionStart", reason: start.reason });
      }
      if (model !== undefined && contextLength !== undefined) {
        for (const engine of this.#engines()) {
          const update = await guarded(this.#timeoutMs, () => engine.updateModel(model, contextLength));
          if (!update.ok) this.#options.onEvent?.({ type: "engine-error", where: "updateModel", reason: update.reason });
        }
      }
      this.#ready = true;
    })();
    return this.#started;
  }

  #feedSteps(steps: readonly StepLike[]): void {
    for (const step of steps) {
      if (!step || typeof step !== "object" || this.#fed.has(step)) continue;
      this.#fed.add(step);
      for (const engine of this.#engines()) {
        const fed = attempt(() => engine.updateFromResponse(toEngineUsage(step.usage)));
        if (!fed.ok) this.#options.onEvent?.({ type: "engine-error", where: "updateFromResponse", reason: fed.reason });
      }
    }
  }

  /** The main engine, and the fallback when there is one: both learn usage and the model. */
  #engines(): ContextEngine[] {
    return this.#options.fallback ? [this.engine, this.#options.fallback] : [this.engine];
  }

  /** A new call: keep what the engine holds when the caller continues from it, else start over. */
  #beginCall(messages: SdkMessage[], instructions: unknown): void {
    instructions = instructionsText(instructions);
    if (typeof instructions === "string" && instructions !== this.#systemText) {
      this.#systemText = instructions;
      if (this.#history[0]?.role === "system") this.#history[0] = { role: "system", content: instructions };
      else if (this.#history.length === 0 && this.#pending.length === 0) this.#history.push({ role: "system", content: instructions });
    }
    const fresh = this.#source.length === 0;
    const mine = this.#diverged ? asSdk(this.history()) : null;
    const fromHistory = mine && startsWith(messages, mine) ? mine.length : -1;
    const fromSource = fromHistory < 0 && startsWith(messages, this.#source) ? this.#source.length : -1;
    if (!fresh && (fromHistory >= 0 || fromSource >= 0)) {
      this.#absorb(messages.slice(Math.max(fromHistory, fromSource)));
    } else {
      this.#source = [];
      this.#history = this.#systemText !== undefined ? [{ role: "system", content: this.#systemText }] : [];
      this.#pending = [];
      this.#historySdk = null;
      this.#diverged = false;
      this.#absorb(messages);
    }
    this.#callInitial = messages.length;
    this.#callKnown = messages.length;
    this.#lastSent = messages;
  }

  #stepAdditions(messages: SdkMessage[]): SdkMessage[] {
    const sent = this.#lastSent;
    const samePrefix = sent.length <= messages.length && sent.every((m, i) => m === messages[i]);
    return samePrefix ? messages.slice(sent.length) : messages.slice(this.#callKnown);
  }

  #absorb(added: readonly SdkMessage[]): void {
    if (added.length === 0) return;
    this.#callKnown += added.length;
    this.#source.push(...added);
    this.#pending.push(...added);
    this.#historySdk = null;
  }

  /** The engine's conversation with every absorbed message converted. */
  #view(): Message[] {
    if (this.#pending.length) {
      this.#history.push(...toOpenAIMessages(this.#pending));
      this.#pending = [];
    }
    return this.#history;
  }

  #toRequest(request: Message[]): PrepareStepOutput {
    const sdk = convertFromOpenAI(request);
    let lead = 0;
    const system: string[] = [];
    while (lead < sdk.length && sdk[lead]?.role === "system") system.push(String(sdk[lead]?.content ?? "")), lead++;
    // ai@7 rejects system messages inside `messages`; one an engine placed mid-list speaks as the user.
    const messages = sdk.slice(lead).map((m) => (m.role === "system" ? { role: "user" as const, content: String(m.content) } : m));
    this.#lastSent = messages;
    const out: PrepareStepOutput = { messages: asModel(messages) };
    const text = system.join("\n\n");
    if (system.length && text !== this.#systemText) {
      out.instructions = text;
      out.system = text;
    }
    return out;
  }
}

function startsWith(messages: readonly SdkMessage[], prefix: readonly SdkMessage[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i] && !deepEqual(messages[i], prefix[i])) return false;
  return true;
}

export function createContextSession(engine: ContextEngine, options?: ContextSessionOptions): ContextSession {
  return new ContextSession(engine, options);
}

/** ai@7's `instructions`: a string, a system message, or a list of them. */
function instructionsText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const list = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : [];
  const texts = list.map((m) => (m && typeof (m as { content?: unknown }).content === "string" ? (m as { content: string }).content : null));
  return texts.length && texts.every((t) => t !== null) ? texts.join("\n\n") : undefined;
}
