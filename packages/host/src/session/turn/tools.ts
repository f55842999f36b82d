import { toolError } from "@context-engine/core";
import type { ToolCall } from "@context-engine/core";
import { dispatchTool } from "../tool-dispatch.js";
import { appendMessage, endTurn } from "./state.js";
import type { TurnState } from "./state.js";

/** Run the answer's tool calls in order, appending one result each; a cancel answers the rest with an error. */
export async function runTools(state: TurnState, calls: readonly ToolCall[]): Promise<void> {
  for (const call of calls) {
    const content = state.signal?.aborted
      ? toolError("interrupted: the turn was cancelled before this tool ran")
      : await dispatchTool(state.session, call, state.turnId, state.signal);
    appendMessage(state, { role: "tool", tool_call_id: call.id, content });
  }
  if (state.signal?.aborted) endTurn(state, "interrupted", "interrupted");
}
