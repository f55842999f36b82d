// Broken engines written the way an outside plugin author would write one: from scratch on the base
// class, with their own compaction, naming and state, not on the kit's reference engine. Each breaks
// one of issue 36's two rules (a discarded pass publishes nothing; per-conversation state is keyed by
// session) so the self-test can say whether the kit's checks reach engines it was not written against.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ContextEngine,
  contentText,
  type ChatModel,
  type CompressOptions,
  type EngineInitContext,
  type EngineStatus,
  type Message,
  type SessionStartOptions,
  type Usage,
} from "@context-engine/core";

/** What the self-test expects: any one of `caughtBy` failing counts as caught. */
export interface OutsiderEngine {
  defect: string;
  rule: "discarded-pass" | "session-state";
  caughtBy: string[];
  create: (ctx: EngineInitContext) => ContextEngine;
}

/** Keep the first system message and the last `keep` messages (never starting on a tool result); digest the rest. */
abstract class DigestEngineBase extends ContextEngine {
  protected readonly llm: ChatModel | undefined;
  protected readonly dir: string | undefined;
  constructor(ctx: EngineInitContext) {
    super();
    this.llm = ctx.chatModel;
    this.dir = ctx.dataDir;
    if (ctx.contextLength) this.updateModel(ctx.model ?? "m", ctx.contextLength);
  }
  get name() {
    return "reference";
  }
  updateFromResponse(usage: Usage) {
    this.recordUsage(usage);
  }
  shouldCompress(tokens?: number) {
    const t = tokens ?? this.lastPromptTokens;
    return this.thresholdTokens > 0 && t >= this.thresholdTokens;
  }
  protected split(messages: Message[]): { head: Message[]; middle: Message[]; tail: Message[] } | null {
    const head = messages[0]?.role === "system" ? [messages[0]] : [];
    let cut = Math.max(head.length, messages.length - 4);
    while (cut > head.length && messages[cut]!.role !== "user") cut--;
    const middle = messages.slice(head.length, cut);
    return middle.length ? { head, middle, tail: messages.slice(cut) } : null;
  }
  protected async digest(middle: Message[], extra: string, signal?: AbortSignal): Promise<string> {
    const text = middle.map((m) => `${m.role}: ${contentText(m.content).slice(0, 300)}`).join("\n");
    if (!this.llm) return text.slice(0, 800);
    const r = await this.llm.complete({ messages: [{ role: "user", content: `Digest this.${extra}\n${text}` }], ...(signal ? { signal } : {}) });
    return contentText(r.message.content);
  }
  protected assemble(parts: { head: Message[]; tail: Message[] }, digest: string): Message[] {
    return [...parts.head, { role: "user", content: `[Digest of earlier conversation]\n${digest}` }, ...parts.tail];
  }
}

/** Writes each digest to a journal the moment the model answers, and checks the signal only afterwards. */
class JournalBeforeCheck extends DigestEngineBase {
  async compress(messages: Message[], options: CompressOptions = {}) {
    const parts = this.split(messages);
    if (!parts) return messages;
    let digest: string;
    try {
      digest = await this.digest(parts.middle, "");
    } catch {
      return messages;
    }
    if (this.dir) {
      mkdirSync(join(this.dir, "journal"), { recursive: true });
      writeFileSync(join(this.dir, "journal", `${Date.now()}.txt`), digest);
    }
    if (options.signal?.aborted) return messages;
    this.compressionCount++;
    return this.assemble(parts, digest);
  }
}

/** Bumps its pass counter and throttle clock before the model call; shouldCompress throttles on them. */
class ThrottleAtStart extends DigestEngineBase {
  private lastPassAt = 0;
  private passes = 0;
  override shouldCompress(tokens?: number) {
    return super.shouldCompress(tokens) && Date.now() - this.lastPassAt > 30_000;
  }
  async compress(messages: Message[], options: CompressOptions = {}) {
    this.lastPassAt = Date.now();
    this.passes++;
    const parts = this.split(messages);
    if (!parts) return messages;
    try {
      const digest = await this.digest(parts.middle, "", options.signal);
      if (options.signal?.aborted) return messages;
      this.compressionCount++;
      return this.assemble(parts, digest);
    } catch {
      return messages;
    }
  }
  override getStatus(): EngineStatus & { passes: number } {
    return { ...super.getStatus(), passes: this.passes };
  }
}

/** A "memory" of recent digests, kept on the instance for style consistency and shown to the model each pass. */
class SharedRecentDigests extends DigestEngineBase {
  private recent: string[] = [];
  async compress(messages: Message[], options: CompressOptions = {}) {
    const parts = this.split(messages);
    if (!parts) return messages;
    try {
      const digest = await this.digest(parts.middle, `\nEarlier digests, for consistency:\n${this.recent.join("\n")}`, options.signal);
      if (options.signal?.aborted) return messages;
      this.recent = [...this.recent, digest].slice(-3);
      this.compressionCount++;
      return this.assemble(parts, digest);
    } catch {
      return messages;
    }
  }
}

/** Keeps one running digest and the id it belongs to; a new id resets it, but only at onSessionStart, and the pass never checks. */
class RunningDigestBySessionStart extends DigestEngineBase {
  private owner = "";
  private running = "";
  override onSessionStart(sessionId: string, _o?: SessionStartOptions) {
    if (sessionId !== this.owner) {
      this.owner = sessionId;
      this.running = "";
    }
  }
  async compress(messages: Message[], options: CompressOptions = {}) {
    const parts = this.split(messages);
    if (!parts) return messages;
    try {
      const digest = await this.digest(parts.middle, this.running ? `\nSo far: ${this.running}` : "", options.signal);
      if (options.signal?.aborted) return messages;
      this.running = `${this.running}\n${digest}`.slice(-1500);
      this.compressionCount++;
      return this.assemble(parts, this.running);
    } catch {
      return messages;
    }
  }
}

/** Remembers a digest even from a pass the host aborted (the answer still arrives) and offers it as "last digest" in its status. */
class StatusFromLateAnswer extends DigestEngineBase {
  private lastDigest = "";
  async compress(messages: Message[], options: CompressOptions = {}) {
    const parts = this.split(messages);
    if (!parts) return messages;
    try {
      const digest = await this.digest(parts.middle, "");
      this.lastDigest = digest;
      if (options.signal?.aborted) return messages;
      this.compressionCount++;
      return this.assemble(parts, digest);
    } catch {
      return messages;
    }
  }
  override getStatus(): EngineStatus & { lastDigest: string } {
    return { ...super.getStatus(), lastDigest: this.lastDigest };
  }
}

/** Keeps the digest of a pass the host aborted and starts the same session's next digest from it. */
class ResumesAbortedDigest extends DigestEngineBase {
  private readonly carried = new Map<string, string>();
  async compress(messages: Message[], options: CompressOptions = {}) {
    const sid = options.sessionId ?? "default";
    const parts = this.split(messages);
    if (!parts) return messages;
    try {
      const before = this.carried.get(sid);
      const digest = await this.digest(parts.middle, before ? `\nContinue from: ${before}` : "");
      this.carried.set(sid, digest);
      if (options.signal?.aborted) return messages;
      this.compressionCount++;
      return this.assemble(parts, before ? `${before}\n${digest}` : digest);
    } catch {
      return messages;
    }
  }
}

const make = (E: new (ctx: EngineInitContext) => ContextEngine) => (ctx: EngineInitContext) => new E(ctx);
const ABORT = "compress > an aborted pass";
const SESSIONS = "concurrency > ";

export const OUTSIDER_ENGINES: OutsiderEngine[] = [
  { defect: "outsider-journal-before-check", rule: "discarded-pass", caughtBy: [ABORT], create: make(JournalBeforeCheck) },
  { defect: "outsider-throttle-at-start", rule: "discarded-pass", caughtBy: [ABORT], create: make(ThrottleAtStart) },
  { defect: "outsider-status-from-late-answer", rule: "discarded-pass", caughtBy: [ABORT], create: make(StatusFromLateAnswer) },
  { defect: "outsider-resumes-aborted-digest", rule: "discarded-pass", caughtBy: [ABORT, "compress > a completed pass the host drops"], create: make(ResumesAbortedDigest) },
  { defect: "outsider-shared-recent-digests", rule: "session-state", caughtBy: [SESSIONS, "compress > a completed pass the host drops"], create: make(SharedRecentDigests) },
  { defect: "outsider-running-digest-by-start", rule: "session-state", caughtBy: [SESSIONS], create: make(RunningDigestBySessionStart) },
];
