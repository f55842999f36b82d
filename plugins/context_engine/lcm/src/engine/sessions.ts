import type { Message } from "@context-engine/core";
import type { AssembleResult } from "../assembly/assembler.js";
import type { PreparedWork } from "../compaction/runner.js";
import type { PlanView } from "./plan-view.js";
import type { ConversationRecord, LcmStoreDriver } from "../store/types.js";

export const DEFAULT_SESSION = "default";

/** Per-session state. The store holds everything durable; this is only in-flight work, caches and a status snapshot. */
export interface SessionState {
  sessionId: string;
  conversationId: number;
  /** Serialises compress / publish / ingest for this session (other sessions run in parallel). */
  queue: Promise<unknown>;
  /** Locked calls queued or running (background publishing steps aside while any is). */
  lockDepth: number;
  /** Summaries prepared off the turn path, waiting for the next compress. */
  prepared: PreparedWork | null;
  preparing: Promise<PreparedWork | null> | null;
  /** The planner's copy of the published frontier (`engine/plan-view.ts`); null until read, or after a change it cannot follow. */
  planView: PlanView | null;
  /** Set when more history arrived while a preparation ran: one more run follows it. */
  prepareAgain: boolean;
  abort: AbortController;
  lastAssembly: { key: string; result: AssembleResult } | null;
  lastCompaction: Record<string, unknown> | null;
  /** The last request selectContext replaced: its selection and the host list it stood for. */
  rescue: { selection: Message[]; hostLength: number; hostLast: string } | null;
  /** The conversation's counters as last read (what `getStatus` shows: it never calls the store). */
  snapshot: ConversationRecord;
}

/**
 * The sessions of one engine: canonical ids (a compaction boundary that
 * renames a session continues its conversation), the current and last active
 * session, a pending reset, and one lock per session.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, SessionState>();
  readonly #opening = new Map<string, Promise<SessionState>>();
  /** Host session ids that continue another session's conversation. */
  readonly #aliases = new Map<string, string>();
  current = DEFAULT_SESSION;
  /** The session of the latest call, for getStatus when the host never called onSessionStart. */
  lastActive = DEFAULT_SESSION;
  /** A session reset whose active context is cleared if the host keeps using the same id. */
  resetPending: string | null = null;

  canonical(sessionId: string): string {
    let id = sessionId;
    for (let hops = 0; hops < 32 && this.#aliases.has(id); hops++) id = this.#aliases.get(id)!;
    return id;
  }

  alias(newId: string, oldId: string): void {
    const target = this.canonical(oldId);
    if (target !== newId) this.#aliases.set(newId, target);
  }

  /** The state of a session already open here, without touching the store. */
  peek(sessionId?: string): SessionState | undefined {
    return this.#sessions.get(this.canonical(sessionId || this.current));
  }

  /** The session shown by getStatus: the current one, else the last active. */
  shown(): SessionState | undefined {
    return this.#sessions.get(this.canonical(this.current)) ?? this.#sessions.get(this.lastActive);
  }

  /**
   * The session's state, its conversation looked up (or created) in the store.
   * A conversation deleted underneath (retention, another process) starts afresh.
   */
  async get(store: LcmStoreDriver, sessionId?: string): Promise<SessionState> {
    const id = this.canonical(sessionId || this.current);
    this.lastActive = id;
    let s = this.#sessions.get(id);
    if (s) {
      const conv = await store.getConversation(s.conversationId);
      if (conv) s.snapshot = conv;
      else {
        s.abort.abort();
        if (this.#sessions.get(id) === s) this.#sessions.delete(id);
        s = undefined;
      }
    }
    s ??= await this.#create(store, id);
    if (this.resetPending === id) {
      this.resetPending = null;
      s.lastAssembly = null;
      s.planView = null;
      await store.setFrontier(s.conversationId, []);
      s.snapshot = (await store.getConversation(s.conversationId)) ?? s.snapshot;
    }
    return s;
  }

  /** One creation per id even when hooks of a new session run at once. */
  #create(store: LcmStoreDriver, id: string): Promise<SessionState> {
    const known = this.#sessions.get(id);
    if (known) return Promise.resolve(known);
    let pending = this.#opening.get(id);
    if (!pending) {
      pending = (async () => {
        const conversation = await store.conversation(id);
        const state: SessionState = {
          sessionId: id,
          conversationId: conversation.id,
          queue: Promise.resolve(),
          lockDepth: 0,
          prepared: null,
          preparing: null,
          planView: null,
          prepareAgain: false,
          abort: new AbortController(),
          lastAssembly: null,
          lastCompaction: null,
          rescue: null,
          snapshot: conversation,
        };
        this.#sessions.set(id, state);
        return state;
      })().finally(() => this.#opening.delete(id));
      this.#opening.set(id, pending);
    }
    return pending;
  }

  /** Run `fn` after every earlier locked call of the session. */
  locked<T>(s: SessionState, fn: () => Promise<T>): Promise<T> {
    s.lockDepth++;
    const run = s.queue.then(fn, fn).finally(() => {
      s.lockDepth--;
    });
    s.queue = run.catch(() => undefined);
    return run;
  }

  /** Forget a session (and the aliases pointing at it); its background work stops. */
  forget(sessionId: string): string {
    const id = this.canonical(sessionId);
    const s = this.#sessions.get(id);
    if (s) {
      s.abort.abort();
      this.#sessions.delete(id);
    }
    for (const [alias, target] of this.#aliases) if (target === id || alias === sessionId) this.#aliases.delete(alias);
    return id;
  }

  /** End a session here (its stored history stays). */
  drop(s: SessionState): void {
    s.abort.abort();
    if (this.#sessions.get(s.sessionId) === s) this.#sessions.delete(s.sessionId);
  }

  /** Session ids this engine keeps alive (retention spares them). */
  liveIds(): string[] {
    return [...this.#sessions.keys(), this.canonical(this.current), ...this.#aliases.values()];
  }

  all(): IterableIterator<SessionState> {
    return this.#sessions.values();
  }

  clear(): void {
    for (const s of this.#sessions.values()) s.abort.abort();
    this.#sessions.clear();
  }
}
