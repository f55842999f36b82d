import type { Message, TokenCounter } from "@context-engine/core";
import { listGeneration } from "./list-edits.js";

/**
 * Token totals of message lists, remembered per list object. The session's
 * conversation only grows between compactions (a commit replaces the array),
 * so a repeat count adds only the appended messages instead of walking a
 * long conversation on every request. Any other list, or one marked as
 * edited in place (see list-edits), is counted in full.
 */
export class ListTokenCounter {
  readonly #counter: TokenCounter;
  readonly #memo = new WeakMap<readonly Message[], { length: number; anchor: Message; total: number; generation: number }>();

  constructor(counter: TokenCounter) {
    this.#counter = counter;
  }

  get counter(): TokenCounter {
    return this.#counter;
  }

  count(messages: readonly Message[]): number {
    const n = messages.length;
    if (n === 0) return 0;
    const memo = this.#memo.get(messages);
    const generation = listGeneration(messages);
    let total = 0;
    let from = 0;
    if (memo && memo.generation === generation && memo.length <= n && messages[memo.length - 1] === memo.anchor) {
      total = memo.total;
      from = memo.length;
    }
    for (let i = from; i < n; i++) total += this.#counter.countMessage(messages[i]!);
    this.#memo.set(messages, { length: n, anchor: messages[n - 1]!, total, generation });
    return total;
  }
}

/** A TokenCounter whose `countMessages` remembers list totals (see ListTokenCounter). */
export function withListMemo(counter: TokenCounter): TokenCounter {
  const lists = new ListTokenCounter(counter);
  return {
    name: counter.name,
    exact: counter.exact,
    countText: (text) => counter.countText(text),
    countMessage: (message) => counter.countMessage(message),
    countMessages: (messages) => lists.count(messages),
  };
}
