import { toolError } from "@context-engine/core";
import type { ToolCall } from "@context-engine/core";
import { dispatchTool } from "../tool-dispatch.js";
import { appendMessage, endTurn } from "./state.js";
import type { TurnState } from "./state.js";
import { boundToolResult } from "./tool-bounds.js";

/**
 * Run the answer's tool calls in order, appending one result each; a cancel
 * answers the rest with an error, a call in `refused` (arguments too large or
 * too deep) is answered with its reason. A result far larger than the window
 * is shortened with a note: what is kept is exactly what is sent.
 */
export async function runTools(state: TurnState, calls: readonly ToolCall[], refused: ReadonlyMap<string, string> = new Map()): Promise<void> {
  const { session, turnId } = state;
  const { runtime } = session;
  for (const call of calls) {
    const name = call.function.name;
    const problem = refused.get(call.id);
    let content: string;
    if (state.signal?.aborted) content = toolError("interrupted: the turn was cancelled before this tool ran");
    else if (problem !== undefined) {
      runtime.logger.warn("tool call refused: its arguments cannot be parsed safely", { sessionId: session.id, tool: name, problem });
      content = toolError(`Tool '${name}' was not run: ${problem}. Call it again with smaller, flatter arguments.`);
    } else content = await dispatchTool(session, call, turnId, state.signal);
    const bounded = boundToolResult(content, session.contextLength, runtime.counter);
    if (bounded.shortened) {
      runtime.logger.warn("tool result larger than the context window allows: shortened with a note", { sessionId: session.id, tool: name, ...bounded.shortened });
      runtime.bus.emit({ type: "tool.result_shortened", sessionId: session.id, turnId, name, callId: call.id, ...bounded.shortened, original: content });
    }
    appendMessage(state, { role: "tool", tool_call_id: call.id, content: bounded.content });
  }
  if (state.signal?.aborted) endTurn(state, "interrupted", "interrupted");
}
