import type { Message } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import type { CompactionTrigger, HostEvent } from "@context-engine/host";

/** What one committed compaction did to the conversation. */
export interface CompactionRecord {
  number: number;
  trigger: CompactionTrigger;
  at: Date;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  durationMs: number;
  /** Messages that left the context. */
  removed: Message[];
  /** Messages the compaction put in (its summaries). */
  added: Message[];
  /** Ids of lossless-engine summaries in the added text (`<summary id="…">`), for /expand. */
  summaryIds: string[];
  /** Read back from the transcript of a resumed chat (its removed messages are previews). */
  restored?: boolean;
  /** Its id in the session's ledger (`c1`, …; `session.compactions()`), where the removed messages are kept whole. */
  ledgerId?: string;
}

const key = (m: Message) => JSON.stringify(m);

/**
 * Watches compactions of one session: the list before a pass (snapshotted
 * at `compaction.started`) against the list after it commits, so a person
 * can see what each pass removed and what replaced it.
 */
export class CompactionLog {
  readonly records: CompactionRecord[] = [];
  #before: Message[] | null = null;
  readonly #messages: () => readonly Message[];

  constructor(messages: () => readonly Message[]) {
    this.#messages = messages;
  }

  /** Messages some compaction put in (summaries), by content. */
  isSummary(message: Message): boolean {
    const k = key(message);
    return this.records.some((r) => r.added.some((a) => key(a) === k)) || /<summary\s[^>]*id="/.test(contentText(message.content));
  }

  /** Compactions a resumed chat's transcript recorded; they come first and keep their numbers. */
  restore(records: readonly CompactionRecord[]): void {
    this.records.unshift(...records.map((r) => ({ ...r, restored: true })));
  }

  /** The last record, when `event` committed one; null otherwise. */
  observe(event: HostEvent): CompactionRecord | null {
    // /new starts another conversation: its compactions are its own.
    if (event.type === "session.reset") this.records.length = 0;
    if (event.type === "compaction.started") this.#before = this.#messages().slice();
    else if (event.type === "compaction.committed") {
      const before = this.#before ?? [];
      const after = this.#messages();
      const beforeKeys = new Set(before.map(key));
      const afterKeys = new Set(after.map(key));
      const added = after.filter((m) => !beforeKeys.has(key(m)));
      this.records.push({
        number: this.records.length + 1,
        trigger: event.trigger,
        at: new Date(event.at),
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        messagesBefore: event.messagesBefore,
        messagesAfter: event.messagesAfter,
        durationMs: event.durationMs,
        removed: before.filter((m) => !afterKeys.has(key(m))),
        added,
        summaryIds: [...new Set(added.flatMap((m) => [...contentText(m.content).matchAll(/<summary\s[^>]*id="([^"]+)"/g)].map((x) => x[1]!)))],
        ...(event.ledgerId ? { ledgerId: event.ledgerId } : {}),
      });
      this.#before = null;
      return this.records.at(-1)!;
    } else if (event.type.startsWith("compaction.") && event.type !== "compaction.blocked") this.#before = null;
    return null;
  }
}
