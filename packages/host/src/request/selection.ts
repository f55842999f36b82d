import { acceptSelection, selectionRejectionReason } from "@context-engine/core";
import type { ContextEngine, Message } from "@context-engine/core";
import { cloneMessage, cloneMessages } from "../clone.js";
import { describeError } from "../errors.js";

export type SelectionOutcome =
  | { kind: "applied"; messages: Message[]; durationMs: number }
  | { kind: "ignored"; messages: Message[]; reason: string; durationMs: number; failed: boolean };

/**
 * Run `engine.selectContext` for one provider request, fail-open.
 *
 * Only called when the engine overrides the hook (the caller's identity
 * check). The engine gets a deep copy of the request list (upstream passes
 * it as is, but here the request list is the persisted conversation itself,
 * so a copy keeps an engine that edits in place from touching history), plus deep copies of the conversation and of the message that
 * started the turn. Every path that does not replace the list hands back the
 * caller's very `requestMessages` object.
 */
export async function runSelection(
  engine: ContextEngine,
  requestMessages: Message[],
  conversation: readonly Message[],
  incoming: Message | null,
  sessionId: string,
): Promise<SelectionOutcome> {
  const started = performance.now();
  const forEngine = cloneMessages(requestMessages);
  let returned: unknown;
  try {
    returned = await engine.selectContext(forEngine, {
      conversationMessages: cloneMessages(conversation),
      incomingMessage: incoming === null ? null : cloneMessage(incoming),
      budgetTokens: engine.contextLength || 0,
      sessionId,
    });
  } catch (error) {
    return {
      kind: "ignored",
      messages: requestMessages,
      reason: `threw: ${describeError(error)}`,
      durationMs: performance.now() - started,
      failed: true,
    };
  }
  const durationMs = performance.now() - started;
  const reason = selectionRejectionReason(returned);
  if (reason !== null) {
    // null/undefined is the documented no-op; anything else is a bad return.
    const failed = returned !== null && returned !== undefined;
    return { kind: "ignored", messages: requestMessages, reason, durationMs, failed };
  }
  // Returning the (possibly edited) copy it was given counts as a selection,
  // as upstream where the request list is itself a request-only copy.
  const accepted = acceptSelection(forEngine, returned);
  return { kind: "applied", messages: accepted, durationMs };
}
