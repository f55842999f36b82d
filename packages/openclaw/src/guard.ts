import { MAX_RESULT_DEPTH, MessageSchema, checkConversation, describeErrorWithCauses as describeError, exceedsDepth } from "@context-engine/core";
import type { Logger, Message } from "@context-engine/core";

export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Run one engine call with a deadline. A throw, a rejection or a timeout
 * becomes `{ ok: false }` (logged once); the signal passed to `fn` is aborted
 * on timeout so cooperative engines stop their work. Never rejects.
 */
export async function bounded<T>(
  label: string,
  timeoutMs: number,
  logger: Logger,
  fn: (signal: AbortSignal) => T | Promise<T>,
  outer?: AbortSignal,
): Promise<Outcome<T>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) return { ok: false, reason: `${label}: aborted by the host` };
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  const deadline = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`${label} timed out after ${timeoutMs} ms`));
      resolve({ ok: false, reason: `${label} timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    controller.signal.addEventListener("abort", () => resolve({ ok: false, reason: `${label}: aborted` }), { once: true });
  });
  const run = (async (): Promise<Outcome<T>> => {
    try {
      return { ok: true, value: await fn(controller.signal) };
    } catch (err) {
      return { ok: false, reason: `${label} threw: ${describeError(err)}` };
    }
  })();
  try {
    const outcome = await Promise.race([run, deadline]);
    if (!outcome.ok) logger.warn(`[context-engine/openclaw] ${outcome.reason}; OpenClaw keeps the unmodified messages`);
    return outcome;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}

/** A synchronous engine call (shouldCompress, updateFromResponse): no timer, just a catch. */
export function guarded<T>(label: string, logger: Logger, fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    const reason = `${label} threw: ${describeError(err)}`;
    logger.warn(`[context-engine/openclaw] ${reason}; OpenClaw keeps the unmodified messages`);
    return { ok: false, reason };
  }
}

/**
 * An engine's message list as plain data the adapter owns, or why not: it is
 * copied first (a throwing getter, a Proxy trap, a cycle or excessive depth
 * becomes a reason, never an exception in OpenClaw), then checked by
 * `rejectMessages` against `input`.
 */
export function acceptMessages(input: readonly Message[], returned: unknown): Outcome<Message[]> {
  let copy: unknown;
  try {
    if (!Array.isArray(returned)) return { ok: false, reason: `returned ${returned === null ? "null" : typeof returned}, not a list` };
    if (exceedsDepth(returned, MAX_RESULT_DEPTH)) return { ok: false, reason: `nested deeper than ${MAX_RESULT_DEPTH} levels` };
    copy = JSON.parse(JSON.stringify(returned));
  } catch (err) {
    return { ok: false, reason: `not plain JSON data (${describeError(err)})` };
  }
  const reason = rejectMessages(input, copy);
  return reason ? { ok: false, reason } : { ok: true, value: copy as Message[] };
}

/**
 * Accept an engine's message list only when it is a non-empty list of valid
 * OpenAI messages that introduces no tool-pairing problem the input did not
 * already have. Returns the reason for a rejection, or null.
 */
export function rejectMessages(input: readonly Message[], returned: unknown): string | null {
  if (!Array.isArray(returned)) return `returned ${returned === null ? "null" : typeof returned}, not a list`;
  if (returned.length === 0 && input.length > 0) return "returned an empty list";
  for (let i = 0; i < returned.length; i++) {
    const parsed = MessageSchema.safeParse(returned[i]);
    if (!parsed.success) return `message ${i}: ${parsed.error.issues[0]?.message ?? "not a valid message"}`;
  }
  const before = countByCode(checkConversation(input));
  for (const problem of checkConversation(returned)) {
    const left = before.get(problem.code) ?? 0;
    if (left <= 0) return problem.message;
    before.set(problem.code, left - 1);
  }
  return null;
}

function countByCode(problems: readonly { code: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of problems) counts.set(p.code, (counts.get(p.code) ?? 0) + 1);
  return counts;
}
