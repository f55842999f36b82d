import type { Message } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import type { EngineSession } from "./session.js";
import type { StoreTrouble } from "./store-trouble.js";
import { ingest } from "./turn.js";

/**
 * `onSessionEnd`: the host's final list is stored and the session dropped.
 * False when the session could not be opened (nothing else to do).
 */
export async function endSession(
  parts: EngineParts,
  trouble: StoreTrouble,
  sessionId: string,
  messages: readonly Message[],
  open: () => Promise<{ store: LcmStoreDriver; s: EngineSession }>,
): Promise<boolean> {
  const peeked = parts.sessions.peek(sessionId);
  const current = parts.handle.current;
  let opened = peeked && current ? { store: current, s: peeked } : null;
  // A session this process never opened (it restarted since) still has its final list stored: what the
  // host changed after its last turn (its own summary of the history) is kept too.
  if (!opened && messages.length) {
    try {
      opened = await open();
    } catch (error) {
      trouble.failed("onSessionEnd", error);
      return false;
    }
  }
  if (!opened) return false;
  const { store, s } = opened;
  try {
    await s.locked(async () => {
      if (messages.length) await ingest(parts, store, s, messages);
    });
    // An import still storing its backlog is finished now: the host may never show that history again.
    await parts.imports.finish(store, s);
  } catch (error) {
    trouble.failed("onSessionEnd", error);
  }
  parts.sessions.drop(s);
  return true;
}
