import type { Session } from "@context-engine/host";
import type { CompactionRecord } from "./compactions.js";
import type { TranscriptStore } from "./transcripts.js";

/**
 * What the transcript records besides the messages: each compaction as it
 * commits, and the engine's list once the turn (or command) that changed it
 * is over — after the turn's messages, so a resume replays nothing twice.
 */
export class Journal {
  #changed = false;
  readonly #store: TranscriptStore | null;
  readonly #session: () => Session;
  readonly #warn: (message: string) => void;

  constructor(store: TranscriptStore | null, session: () => Session, warn: (message: string) => void) {
    this.#store = store;
    this.#session = session;
    this.#warn = warn;
  }

  compacted(record: CompactionRecord): void {
    this.#changed = true;
    this.#write(() => this.#store?.appendCompaction(this.#session().id, record));
  }

  /** The list was edited some other way (old tool results trimmed). */
  changed(): void {
    this.#changed = true;
  }

  /** Save the list when something changed it since the last save. */
  saveContext(): void {
    if (!this.#changed) return;
    this.#changed = false;
    const session = this.#session();
    this.#write(() => this.#store?.appendContext(session.id, session.messages));
  }

  #write(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#warn((error as Error).message);
    }
  }
}
