import type { Message } from "@context-engine/core";

/** A host's source of recorded times (a replay's recording): a message's time, or null when it has none. */
export type RecordedTime = (message: Message) => number | null | undefined;

/**
 * When each message of the conversation was said, kept beside the live message objects (never on
 * them: a provider may refuse a field it does not know). Engines get the times as `messageTimes`,
 * aligned with the list each hook is handed.
 */
export class MessageClock {
  readonly #said = new WeakMap<object, number>();
  readonly #recorded: RecordedTime | undefined;

  constructor(recorded?: RecordedTime) {
    this.#recorded = recorded;
  }

  /** A message entering the conversation now: its recorded time when there is one, else now. */
  stampNew(message: Message): void {
    this.#said.set(message, this.#recordedTime(message) ?? Date.now());
  }

  /** A message the session starts with (history): only a recorded time, never the clock's. */
  stampHistory(message: Message): void {
    const at = this.#recordedTime(message);
    if (at !== null) this.#said.set(message, at);
  }

  /** The times of a list, in its order (null where unknown); undefined when none is known. */
  timesOf(list: readonly Message[]): (number | null)[] | undefined {
    let known = false;
    const out = list.map((m) => {
      const at = this.#said.get(m);
      if (at === undefined) return null;
      known = true;
      return at;
    });
    return known ? out : undefined;
  }

  #recordedTime(message: Message): number | null {
    if (!this.#recorded) return null;
    try {
      const at = this.#recorded(message);
      return typeof at === "number" && Number.isFinite(at) ? at : null;
    } catch {
      // The caller's lookup failing costs the time, never the message.
      return null;
    }
  }
}
