import { defaultTokenCounter } from "@context-engine/core";
import type { Logger, Message } from "@context-engine/core";
import { adoptView, workingList } from "./assemble.js";
import { acceptMessages, bounded, guarded } from "./guard.js";
import type { OcCompactParams, OcCompactResult } from "./openclaw-types.js";
import type { SessionEntry } from "./sessions.js";

/**
 * OpenClaw's `compact` (preflight with `force`, `openclaw sessions compact`,
 * overflow recovery). It gets no messages: the engine compacts the last
 * assembled context, or, in a process that has assembled nothing yet (right
 * after a restart, when OpenClaw's preflight comes first), its own stored
 * state from an empty list. A reason OpenClaw counts as a harmless skip is
 * given when there is nothing to compact, so a session never wedges on it.
 */
export async function compactSession(entry: SessionEntry, params: OcCompactParams, timeoutMs: number, logger: Logger): Promise<OcCompactResult> {
  // A user's `/compact` or `openclaw sessions compact` is honoured as asked. OpenClaw's automatic calls
  // (preflight, overflow) use its own reserve, which on a small window asks at a fraction of it: the
  // engine compacts when the model's window requires it (its threshold), otherwise this is a skip.
  const manual = params.runtimeContext?.forceReason === "manual" || params.compactionTarget === "threshold" || Boolean(params.customInstructions);
  if (!manual) {
    const tokens = params.currentTokenCount;
    const wanted = guarded("shouldCompress", logger, () => entry.engine.shouldCompress(tokens));
    if (wanted.ok && wanted.value === false) {
      const window = entry.window ? ` of the model's ${entry.window}-token window` : "";
      return { ok: true, compacted: false, reason: `below threshold: ${tokens ?? "the last prompt's"} tokens${window} need no compaction yet` };
    }
  }
  const host = entry.lastHost ?? [];
  const { working, hostConverted } = workingList(entry, host);
  const tokensBefore = params.currentTokenCount ?? defaultTokenCounter.countMessages(working);
  // The engine's own copy: one that edits it and then throws leaves the view untouched.
  const given = structuredClone(working);
  const outcome = await bounded(
    "compress",
    timeoutMs,
    logger,
    (signal) =>
      entry.engine.compress(given, {
        force: manual,
        signal,
        sessionId: entry.sessionId,
        ...(params.customInstructions ? { focusTopic: params.customInstructions } : {}),
        ...(params.currentTokenCount !== undefined ? { currentTokens: params.currentTokenCount } : {}),
      }),
    params.abortSignal,
  );
  if (!outcome.ok) return failed(manual, outcome.reason, logger);
  const checked = acceptMessages(working, outcome.value);
  if (!checked.ok) {
    // An empty answer to an empty list is the engine holding nothing for this session.
    if (working.length === 0) return { ok: true, compacted: false, reason: "nothing to compact: the engine holds no history for this session yet" };
    return failed(manual, `engine returned an invalid conversation: ${checked.reason}`, logger);
  }
  if (sameList(checked.value, working)) return { ok: true, compacted: false, reason: "nothing to compact: the engine kept the conversation as it is" };
  const tokensAfter = defaultTokenCounter.countMessages(checked.value);
  // From stored state there is no host list for the result to stand for: the engine's store holds the
  // compaction, and the next assemble builds from it (a view over no host messages would repeat them all).
  if (host.length > 0) adoptView(entry, checked.value, hostConverted);
  return { ok: true, compacted: true, result: { tokensBefore, tokensAfter } };
}

function sameList(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A compaction the engine could not do. Asked by the user, that is the answer. Asked by OpenClaw itself
 * (preflight, overflow), a failure fails the turn, and every later one the same way (a real run: "tool call
 * id is used twice" in the engine's result wedged three turns in a row): the engine keeps the conversation
 * as it is instead, logged, as a skip OpenClaw accepts. A failing engine is never worse than none.
 */
function failed(manual: boolean, reason: string, logger: Logger): OcCompactResult {
  if (manual) return { ok: false, compacted: false, reason };
  logger.warn(`[context-engine/openclaw] compaction failed, the conversation is kept as it is: ${reason}`);
  // Worded as OpenClaw classifies a harmless skip ("nothing to compact"), so its preflight goes on.
  return { ok: true, compacted: false, reason: `nothing to compact: the engine could not compact (${reason}); the conversation is kept as it is` };
}
