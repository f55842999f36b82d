import type { Message } from "@context-engine/core";
import type { BaseMessage } from "@langchain/core/messages";
import { fromOpenAIMessage } from "./from-openai.js";
import { toOpenAIMessage } from "./to-openai.js";

/**
 * Converts a LangChain list to OpenAI format and back, remembering which
 * LangChain message each converted one came from. A message the engine hands
 * back unchanged (same object, or an equal copy, as engines that store and
 * re-render history produce) comes back as its original LangChain object,
 * with its id and metadata; only new or edited messages are built fresh.
 */
export class MessageCodec {
  readonly #byObject = new WeakMap<object, { original: BaseMessage; key: string }>();
  readonly #byContent = new Map<string, BaseMessage[]>();

  toOpenAI(messages: readonly BaseMessage[]): Message[] {
    const out: Message[] = [];
    for (const original of messages) {
      const converted = toOpenAIMessage(original);
      if (!converted) continue;
      const key = JSON.stringify(converted);
      this.#byObject.set(converted, { original, key });
      const queue = this.#byContent.get(key);
      if (queue) queue.push(original);
      else this.#byContent.set(key, [original]);
      out.push(converted);
    }
    return out;
  }

  /** Engine output → LangChain messages. Throws on a message it cannot convert. */
  fromOpenAI(messages: readonly Message[]): BaseMessage[] {
    const used = new Set<BaseMessage>();
    return messages.map((message) => {
      const key = JSON.stringify(message);
      // The very object we produced, not edited in place since.
      const mine = this.#byObject.get(message);
      if (mine && mine.key === key && !used.has(mine.original)) {
        used.add(mine.original);
        return mine.original;
      }
      const candidates = this.#byContent.get(key);
      const original = candidates?.find((c) => !used.has(c));
      if (original) {
        used.add(original);
        return original;
      }
      return fromOpenAIMessage(message);
    });
  }
}
