import type { Logger } from "@context-engine/core";
import type { HostEvent, HostEventInput, HostEventListener, HostEventType } from "./events.js";

/**
 * Typed listeners keyed by event type, plus catch-all listeners. A throwing
 * listener is logged and never disturbs the turn.
 */
export class EventBus {
  readonly #byType = new Map<HostEventType, Set<(event: HostEvent) => void>>();
  readonly #all = new Set<(event: HostEvent) => void>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  on<T extends HostEventType>(type: T, listener: HostEventListener<T>): () => void {
    let set = this.#byType.get(type);
    if (!set) this.#byType.set(type, (set = new Set()));
    const fn = listener as (event: HostEvent) => void;
    set.add(fn);
    return () => set.delete(fn);
  }

  onAny(listener: (event: HostEvent) => void): () => void {
    this.#all.add(listener);
    return () => this.#all.delete(listener);
  }

  /** Whether anyone listens for `type`; lets hot paths skip building events. */
  wants(type: HostEventType): boolean {
    return this.#all.size > 0 || (this.#byType.get(type)?.size ?? 0) > 0;
  }

  /** Whether a listener subscribed to `type` by name (catch-all listeners do not count): opt-in behaviour such as streaming. */
  subscribed(type: HostEventType): boolean {
    return (this.#byType.get(type)?.size ?? 0) > 0;
  }

  emit(input: HostEventInput): void {
    const typed = this.#byType.get(input.type);
    if (this.#all.size === 0 && (!typed || typed.size === 0)) return;
    const event = { ...input, at: Date.now() } as HostEvent;
    if (typed) for (const fn of typed) this.#call(fn, event);
    for (const fn of this.#all) this.#call(fn, event);
  }

  #call(fn: (event: HostEvent) => void, event: HostEvent): void {
    try {
      fn(event);
    } catch (error) {
      this.#logger.warn("host event listener threw; ignored", {
        event: event.type,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
