import type { LcmStoreDriver } from "../store/types.js";
import { EngineSession } from "./session.js";

export const DEFAULT_SESSION = "default";

/**
 * The sessions of one engine: canonical ids (a compaction boundary that
 * renames a session continues its conversation), the current and last active
 * session, a pending reset, and one lock per session.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, EngineSession>();
  readonly #opening = new Map<string, Promise<EngineSession>>();
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
  peek(sessionId?: string): EngineSession | undefined {
    return this.#sessions.get(this.canonical(sessionId || this.current));
  }

  /** The session shown by getStatus: the current one, else the last active. */
  shown(): EngineSession | undefined {
    return this.#sessions.get(this.canonical(this.current)) ?? this.#sessions.get(this.lastActive);
  }

  /**
   * The session's state, its conversation looked up (or created) in the store.
   * A conversation deleted underneath (retention, another process) starts afresh.
   */
  async get(store: LcmStoreDriver, sessionId?: string): Promise<EngineSession> {
    const id = this.canonical(sessionId || this.current);
    this.lastActive = id;
    let s = this.#sessions.get(id);
    if (s) {
      const conv = await store.getConversation(s.conversationId);
      if (conv) s.noteConversation(conv);
      else {
        s.stop();
        if (this.#sessions.get(id) === s) this.#sessions.delete(id);
        s = undefined;
      }
    }
    s ??= await this.#create(store, id);
    if (this.resetPending === id) {
      this.resetPending = null;
      await store.setFrontier(s.conversationId, []);
      s.contextCleared(await store.getConversation(s.conversationId));
    }
    return s;
  }

  /** One creation per id even when hooks of a new session run at once. */
  #create(store: LcmStoreDriver, id: string): Promise<EngineSession> {
    const known = this.#sessions.get(id);
    if (known) return Promise.resolve(known);
    let pending = this.#opening.get(id);
    if (!pending) {
      pending = (async () => {
        const conversation = await store.conversation(id);
        const state = new EngineSession(id, conversation);
        this.#sessions.set(id, state);
        return state;
      })().finally(() => this.#opening.delete(id));
      this.#opening.set(id, pending);
    }
    return pending;
  }

  /** Forget a session (and the aliases pointing at it); its background work stops. */
  forget(sessionId: string): string {
    const id = this.canonical(sessionId);
    const s = this.#sessions.get(id);
    if (s) {
      s.stop();
      this.#sessions.delete(id);
    }
    for (const [alias, target] of this.#aliases) if (target === id || alias === sessionId) this.#aliases.delete(alias);
    return id;
  }

  /** End a session here (its stored history stays). */
  drop(s: EngineSession): void {
    s.stop();
    if (this.#sessions.get(s.sessionId) === s) this.#sessions.delete(s.sessionId);
  }

  /** Session ids this engine keeps alive (retention spares them). */
  liveIds(): string[] {
    return [...this.#sessions.keys(), this.canonical(this.current), ...this.#aliases.values()];
  }

  all(): IterableIterator<EngineSession> {
    return this.#sessions.values();
  }

  clear(): void {
    for (const s of this.#sessions.values()) s.stop();
    this.#sessions.clear();
  }
}
