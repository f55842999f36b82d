import type { Message } from "@context-engine/core";
import { checkConversation, checkList, describeError } from "@context-engine/core";

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

export type Accepted = { ok: true; messages: Message[] } | { ok: false; reason: string };

/**
 * Check a list an engine returned, inside the guard: it is copied into plain
 * JSON data first (a throwing getter, a Proxy trap or a cycle becomes a
 * reason, never an exception in the app), then must be a valid conversation
 * with intact tool pairs and only URLs the SDK can send. The accepted list is
 * that copy, so the engine cannot change it afterwards.
 */
export function acceptList(returned: unknown): Accepted {
  const base = checkList(returned);
  if (!base.ok) return base;
  const problems = checkConversation(base.messages);
  if (problems.length) return { ok: false, reason: problems.map((p) => p.message).join("; ") };
  const url = unsafeUrl(base.messages);
  return url ? { ok: false, reason: url } : base;
}

// A URL scheme other than these (`javascript:`, `file:`, …) is refused; scheme-less data (raw base64) is left to the provider.
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const SENDABLE_SCHEMES = new Set(["http", "https", "data", "ai-sdk-reference"]); // the last: to-openai.ts's own placeholder
const sendable = (url: unknown) => typeof url === "string" && SENDABLE_SCHEMES.has((SCHEME.exec(url.trim())?.[1] ?? "data").toLowerCase());

/** The first image or file URL that could not be sent, described, or null. */
function unsafeUrl(messages: readonly Message[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content as unknown[]) {
      const p = part as { type?: unknown; image_url?: { url?: unknown }; file?: { file_data?: unknown } };
      const url = p.type === "image_url" ? p.image_url?.url : p.type === "file" ? p.file?.file_data : undefined;
      if (url !== undefined && !sendable(url)) {
        return `message ${i} has a ${String(p.type)} part whose URL is not http(s) or data: (${String(url).slice(0, 40)})`;
      }
    }
  }
  return null;
}
