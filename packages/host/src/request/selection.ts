import { checkSelectionResult, describeError, selectionRejectionReason } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { cloneMessage, cloneMessages } from "../clone.js";
import type { HookFailureReason } from "../events.js";
import type { HostRuntime } from "../runtime.js";
import { bounded, failureReasonOf } from "../session/engine-calls.js";

export type SelectionOutcome =
  | { kind: "applied"; messages: Message[]; durationMs: number }
  | { kind: "ignored"; messages: Message[]; reason: string; durationMs: number; failure: HookFailureReason | null };

export interface SelectionInput {
  runtime: HostRuntime;
  sessionId: string;
  turnId: string;
  requestMessages: Message[];
  conversation: readonly Message[];
  incoming: Message | null;
  /** The input budget the host enforces on this request (see `inputBudget`); 0: unknown. */
  budgetTokens: number;
}

/**
 * Run `engine.selectContext` for one provider request, fail-open and bounded
 * by `hookTimeouts.selectContext`.
 *
 * Only called when the engine overrides the hook. The engine gets deep
 * copies (the request list is the persisted conversation itself). What it
 * returns is used only when `checkSelectionResult` accepts it: a
 * structurally valid list that keeps the host's system prefix (it may
 * rephrase or drop the turn's user message; role oddities are left to the
 * sanitisers). Every other path hands back the caller's very `requestMessages`.
 */
export async function runSelection(input: SelectionInput): Promise<SelectionOutcome> {
  const { runtime, requestMessages } = input;
  const started = performance.now();
  const ignored = (reason: string, failure: HookFailureReason | null): SelectionOutcome => ({
    kind: "ignored",
    messages: requestMessages,
    reason,
    durationMs: performance.now() - started,
    failure,
  });
  let returned: unknown;
  try {
    const forEngine = cloneMessages(requestMessages);
    const messageTimes = runtime.clock.timesOf(requestMessages);
    const options = {
      conversationMessages: cloneMessages(input.conversation),
      incomingMessage: input.incoming === null ? null : cloneMessage(input.incoming),
      budgetTokens: input.budgetTokens,
      sessionId: input.sessionId,
      ...(messageTimes ? { messageTimes } : {}),
    };
    returned = await bounded(runtime, input.sessionId, input.turnId, "selectContext", () => runtime.engine.selectContext(forEngine, options));
  } catch (error) {
    const failure = failureReasonOf(error);
    const label = failure === "timeout" ? "timed out" : failure === "skipped" ? "skipped" : "threw";
    return ignored(`${label}: ${describeError(error)}`, failure);
  }
  // null/undefined is the documented no-op.
  if (returned === null || returned === undefined) return ignored(selectionRejectionReason(returned) ?? "returned nothing", null);
  const check = checkSelectionResult(returned, { request: requestMessages, incoming: input.incoming });
  if (!check.ok) return ignored(`invalid result: ${check.reason}`, "invalid_result");
  return { kind: "applied", messages: check.messages, durationMs: performance.now() - started };
}
