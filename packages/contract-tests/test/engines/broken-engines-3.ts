// Broken engines written independently of the first two lists: each breaks a rule those lists
// already reach (force, discarded passes, per-session state, onTurnComplete snapshots) in a way the
// earlier checks did not see, so the kit's checks aim at the rule rather than one implementation.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  contentText,
  type ChatModel,
  type CompressOptions,
  type ContextEngine,
  type EngineInitContext,
  type Message,
  type SessionStartOptions,
  type TurnCompleteMeta,
  type Usage,
} from "@context-engine/core";
import type { BrokenEngine } from "./broken-engines.js";
import { ReferenceEngine } from "./reference-engine.js";

const isSummary = (m: Message) => contentText((m as { content?: unknown }).content).startsWith("[Summary of");

/** Its own "only over the threshold" guard, checked before force. */
class ThresholdGuardIgnoresForce extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    if ((options.currentTokens ?? this.lastPromptTokens) < this.thresholdTokens) return messages;
    return super.compress(messages, options);
  }
}

/** Never re-summarises a list that already holds a summary, forced or not. */
class SummaryGuardIgnoresForce extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    if (messages.some(isSummary)) return messages;
    return super.compress(messages, options);
  }
}

/** Wraps the summary model to remember every answer, whether or not the pass it served completed. */
function remembering(model: ChatModel | undefined, heard: string[]): ChatModel | undefined {
  if (!model) return undefined;
  return {
    ...(model.model ? { model: model.model } : {}),
    async complete(request) {
      const response = await model.complete(request);
      heard.push(contentText(response.message.content));
      return response;
    },
  };
}

/** Honours abort for its result, but keeps the late summary and writes it out when the session ends. */
class FlushesDiscardedSummary extends ReferenceEngine {
  readonly #heard: string[];
  constructor(ctx: EngineInitContext = {}) {
    const heard: string[] = [];
    super({ ...ctx, chatModel: remembering(ctx.chatModel, heard) });
    this.#heard = heard;
  }
  override onSessionEnd(sessionId: string, messages: readonly Message[]): void {
    super.onSessionEnd(sessionId, messages);
    if (this.dataDir && this.#heard.length > 0) writeFileSync(join(this.dataDir, "summaries.json"), JSON.stringify(this.#heard));
  }
}

/** One "previous summary" on the instance, cleared at every session start and reset, never keyed by session. */
class InstancePreviousSummary extends ReferenceEngine {
  #previous = "";
  override onSessionStart(sessionId: string, options?: SessionStartOptions): void {
    super.onSessionStart(sessionId, options);
    this.#previous = "";
  }
  override onSessionReset(): void {
    super.onSessionReset();
    this.#previous = "";
  }
  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const previous = this.#previous;
    const out = await super.compress(messages, options);
    if (out === messages) return out;
    this.#previous = out.filter(isSummary).map((m) => contentText(m.content)).join("\n") + messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n").slice(-400);
    if (!previous) return out;
    return out.map((m) => (isSummary(m) ? ({ ...m, content: `${contentText(m.content)}\nEarlier: ${previous}` } as Message) : m));
  }
}

/** Keeps the list of the last onTurnComplete and empties it ("releases" it) on the next call. */
class ClearsPreviousTurnList extends ReferenceEngine {
  #last: Message[] | undefined;
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta): void {
    this.#last?.splice(0);
    this.#last = messages as Message[];
    super.onTurnComplete(messages, usage, meta);
  }
}

/** Marks the messages of the previous snapshot as indexed on the next call (they are the host's objects). */
class MarksPreviousTurnMessages extends ReferenceEngine {
  #last: readonly Message[] = [];
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta): void {
    for (const m of this.#last) (m as Record<string, unknown>).indexed = true;
    this.#last = messages;
    super.onTurnComplete(messages, usage, meta);
  }
}

const ref = (E: new (ctx: EngineInitContext) => ContextEngine) => (ctx: EngineInitContext) => new E(ctx);
const C = "compress > ";

export const RULE_BROKEN_ENGINES: BrokenEngine[] = [
  { defect: "force-ignored-under-threshold", aimedAt: `${C}force: a manual compress compacts although the host's figure is under the threshold`, create: ref(ThresholdGuardIgnoresForce) },
  { defect: "force-ignored-after-summary", aimedAt: `${C}force: a manual compress compacts a conversation that already holds a summary`, create: ref(SummaryGuardIgnoresForce) },
  { defect: "flushes-discarded-summary", aimedAt: `${C}a discarded pass reaches no durable state, when the turn completes, at the session's end or on release either`, create: ref(FlushesDiscardedSummary) },
  { defect: "instance-previous-summary", aimedAt: "concurrency > a session's pass never sees another open session's pass, whatever the order", create: ref(InstancePreviousSummary) },
  { defect: "clears-previous-turn-list", aimedAt: "onTurnComplete > never changes a list it received earlier, on later calls either", create: ref(ClearsPreviousTurnList) },
  { defect: "marks-previous-turn-messages", aimedAt: "onTurnComplete > never changes a list it received earlier, on later calls either", create: ref(MarksPreviousTurnMessages) },
];
