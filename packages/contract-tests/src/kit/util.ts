import { isDeepStrictEqual } from "node:util";
import { contentText, defaultTokenCounter, describeError as describeAnyError, type Message } from "@context-engine/core";

export const countTokens = (messages: readonly Message[]): number => defaultTokenCounter.countMessages(messages);

/** A deep snapshot to compare against later (fails loudly on non-cloneable values). */
export function snapshot<T>(value: T): T {
  return structuredClone(value);
}

export const deepEqual = isDeepStrictEqual;

/** All text of a list of messages, tool-call arguments included, for "does it contain X" checks. */
export function allText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

export function lastUserText(messages: readonly Message[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user") return contentText(m.content);
  }
  return null;
}

/** Await anything with a deadline; resolves to `{ settled: false }` if it did not settle in time. */
export async function settleWithin<T>(
  work: Promise<T>,
  ms: number,
): Promise<{ settled: true; value?: T; error?: unknown } | { settled: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ settled: false }>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([
      work.then(
        (value) => ({ settled: true as const, value }),
        (error: unknown) => ({ settled: true as const, error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Describe a thrown value in one line. */
/** Core's description with the error's class name first: authors want to see "TypeError: …". */
export function describeError(error: unknown): string {
  const text = describeAnyError(error);
  return error instanceof Error ? `${error.name}: ${text}` : text;
}

/** Insert `marker` into every user and tool message so leaks can be spotted in any output. */
export function markConversation(messages: Message[], marker: string): Message[] {
  return messages.map((m) => {
    if ((m.role === "user" || m.role === "tool") && typeof m.content === "string") {
      return { ...m, content: `${m.content}\n[${marker}]` } as Message;
    }
    return m;
  });
}
