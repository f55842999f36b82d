import type { Message } from "@context-engine/core";
import { acceptSelection, checkConversation, describeError } from "@context-engine/core";

export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Run one engine call under the contract's fail-open rule: a throw, a
 * rejection or no answer within `timeoutMs` becomes a reason, never an error
 * in the caller's loop. The signal is aborted when the call is given up.
 */
export async function guarded<T>(timeoutMs: number, call: (signal: AbortSignal) => T | PromiseLike<T>): Promise<Outcome<T>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const pending = Promise.resolve().then(() => call(controller.signal));
    const timeout = new Promise<Outcome<T>>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
        resolve({ ok: false, reason: `timed out after ${timeoutMs} ms` });
      }, timeoutMs);
    });
    return await Promise.race([pending.then((value): Outcome<T> => ({ ok: true, value })), timeout]);
  } catch (error) {
    return { ok: false, reason: describeError(error) };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** A synchronous engine call (shouldCompress, getToolSchemas) that may throw. */
export function attempt<T>(call: () => T): Outcome<T> {
  try {
    return { ok: true, value: call() };
  } catch (error) {
    return { ok: false, reason: describeError(error) };
  }
}

/** Why a list an engine returned cannot be sent, or null when it is a valid conversation. */
export function conversationProblem(returned: unknown): string | null {
  if (!Array.isArray(returned)) return `returned ${returned === null ? "null" : typeof returned}, not a list`;
  if (returned.length === 0) return "returned an empty list";
  if (acceptSelection([] as Message[], returned) !== returned) return "returned a list with non-message items";
  const problems = checkConversation(returned);
  return problems.length ? problems.map((p) => p.message).join("; ") : null;
}
