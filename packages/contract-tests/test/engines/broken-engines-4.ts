// Broken engines for the two rules issue 36 names: a pass the host may still discard publishes
// nothing readable (counters, status, tools, other sessions), and per-conversation state is keyed by
// session, whatever the host's order of calls (no reset between sessions, passes at the same time).
import {
  contentText,
  type ChatModel,
  type CompressOptions,
  type ContextEngine,
  type EngineInitContext,
  type EngineStatus,
  type Message,
  type SessionStartOptions,
} from "@context-engine/core";
import type { BrokenEngine } from "./broken-engines.js";
import { ReferenceEngine } from "./reference-engine.js";

const isSummary = (m: Message) => contentText((m as { content?: unknown }).content).startsWith("[Summary of");

/** The summary messages of `out` with "Earlier: <previous>" appended (how these engines carry state forward). */
function withEarlier(out: Message[], previous: string): Message[] {
  return out.map((m) => (isSummary(m) ? ({ ...m, content: `${contentText(m.content)}\nEarlier: ${previous}` } as Message) : m));
}

/** The summary model, wrapped to hand every answer to `heard`, whether or not its pass completes. */
function overhearing(model: ChatModel | undefined, heard: (text: string) => void): ChatModel | undefined {
  if (!model) return undefined;
  return {
    ...(model.model ? { model: model.model } : {}),
    async complete(request) {
      const response = await model.complete(request);
      heard(contentText(response.message.content));
      return response;
    },
  };
}

/** Counts the compaction when the pass starts; an aborted pass is never taken back. */
class CountsAtStart extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const before = this.compressionCount;
    this.compressionCount = before + 1;
    const out = await super.compress(messages, options);
    // Undo the reference engine's own count: this one already counted.
    if (this.compressionCount > before + 1) this.compressionCount = before + 1;
    return out;
  }
}

/** Starts a "just compacted" cooldown when a pass starts, so a pass the host aborted still blocks the next. */
class CooldownAtStart extends ReferenceEngine {
  #until = 0;
  override shouldCompress(promptTokens?: number): boolean {
    return Date.now() >= this.#until && super.shouldCompress(promptTokens);
  }
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    this.#until = Date.now() + 60_000;
    return super.compress(messages, options);
  }
}

/** Shows the last summary its model wrote in getStatus, from whichever pass it came. */
class StatusShowsLastAnswer extends ReferenceEngine {
  #last = "";
  constructor(ctx: EngineInitContext = {}) {
    super({ ...ctx, chatModel: overhearing(ctx.chatModel, (t) => (this.#last = t)) });
  }
  override getStatus(): EngineStatus & { lastSummary: string } {
    return { ...super.getStatus(), lastSummary: this.#last.slice(0, 400) };
  }
}

/** Indexes every summary its model writes for the session's search tool at once, before the pass completes. */
class IndexesSummaryEarly extends ReferenceEngine {
  #session = "default";
  constructor(ctx: EngineInitContext = {}) {
    super({ ...ctx, chatModel: overhearing(ctx.chatModel, (t) => this.#index(t)) });
  }
  #index(text: string): void {
    const entries = this.sessions.get(this.#session) ?? [];
    entries.push({ role: "assistant", text });
    this.sessions.set(this.#session, entries);
  }
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    this.#session = options.sessionId ?? "default";
    return super.compress(messages, options);
  }
}

/** One "previous summary" for the instance, filled by any answer of its model and merged into the next pass. */
class CarriesLastAnswer extends ReferenceEngine {
  #previous = "";
  constructor(ctx: EngineInitContext = {}) {
    super({ ...ctx, chatModel: overhearing(ctx.chatModel, (t) => (this.#previous = t)) });
  }
  override onSessionReset(): void {
    super.onSessionReset();
    this.#previous = "";
  }
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const previous = this.#previous;
    const out = await super.compress(messages, options);
    return out === messages || !previous ? out : withEarlier(out, previous.slice(0, 600));
  }
}

/** Iterative summary on the instance, cleared by onSessionReset only: a new session without a reset inherits it. */
class ClearsOnResetOnly extends ReferenceEngine {
  #previous = "";
  override onSessionReset(): void {
    super.onSessionReset();
    this.#previous = "";
  }
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const previous = this.#previous;
    const out = await super.compress(messages, options);
    if (out === messages) return out;
    const summary = out.filter(isSummary).map((m) => contentText(m.content)).join("\n");
    this.#previous = `${summary}\n${messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n")}`.slice(-1200);
    return previous ? withEarlier(out, previous) : out;
  }
}

/** Shows its model the instance's previous summary (never the output): only the prompt leaks, after an unreset session switch. */
class PromptsWithOtherSession extends ReferenceEngine {
  #previous = "";
  readonly #model: ChatModel | undefined;
  constructor(ctx: EngineInitContext = {}) {
    const inner = ctx.chatModel;
    const self = { previous: () => "" };
    super({
      ...ctx,
      chatModel: inner && {
        ...(inner.model ? { model: inner.model } : {}),
        complete: (request) => inner.complete({ ...request, messages: [...request.messages, { role: "user", content: `Previous summary: ${self.previous()}` }] }),
      },
    });
    self.previous = () => this.#previous;
    this.#model = inner;
  }
  override onSessionReset(): void {
    super.onSessionReset();
    this.#previous = "";
  }
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const out = await super.compress(messages, options);
    if (out !== messages && this.#model) this.#previous = messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n").slice(-800);
    return out;
  }
}

/** Keys the previous summary by the session of the latest call, read again after the model answered. */
class SessionFieldAcrossAwait extends ReferenceEngine {
  #current = "default";
  readonly #previous = new Map<string, string>();
  override onSessionStart(sessionId: string, options?: SessionStartOptions): void {
    super.onSessionStart(sessionId, options);
    this.#current = sessionId;
  }
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    this.#current = options.sessionId ?? this.#current;
    const out = await super.compress(messages, options);
    // After the await another session's pass may have set #current.
    const key = this.#current;
    const previous = this.#previous.get(key);
    if (out !== messages) this.#previous.set(key, messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n").slice(-800));
    return out === messages || !previous ? out : withEarlier(out, previous);
  }
}

const ref = (E: new (ctx: EngineInitContext) => ContextEngine) => (ctx: EngineInitContext) => new E(ctx);
const C = "compress > ";
const S = "concurrency > ";

export const STATE_BROKEN_ENGINES: BrokenEngine[] = [
  { defect: "counts-aborted-pass", aimedAt: `${C}an aborted pass leaves compressionCount and shouldCompress as they were`, create: ref(CountsAtStart) },
  { defect: "cooldown-from-aborted-pass", aimedAt: `${C}an aborted pass leaves compressionCount and shouldCompress as they were`, create: ref(CooldownAtStart) },
  { defect: "status-shows-aborted-summary", aimedAt: `${C}an aborted pass's summary is readable through nothing: not the status, the tools or another session's pass`, create: ref(StatusShowsLastAnswer) },
  { defect: "tool-finds-aborted-summary", aimedAt: `${C}an aborted pass's summary is readable through nothing: not the status, the tools or another session's pass`, create: ref(IndexesSummaryEarly) },
  { defect: "carries-dropped-summary", aimedAt: `${C}a completed pass the host drops (its result failed validation) never reaches another session`, create: ref(CarriesLastAnswer) },
  { defect: "clears-on-reset-only", aimedAt: `${S}a session started after another ended, with no reset between, never sees its content`, create: ref(ClearsOnResetOnly) },
  { defect: "prompts-with-other-session", aimedAt: `${S}a session started after another ended, with no reset between, never sees its content`, create: ref(PromptsWithOtherSession) },
  { defect: "session-field-across-await", aimedAt: `${S}two sessions' passes running at the same time keep their state apart`, create: ref(SessionFieldAcrossAwait) },
];
