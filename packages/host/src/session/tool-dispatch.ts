import { raceAbort, toolError } from "@context-engine/core";
import type { ToolCall } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import { describeError } from "../errors.js";
import { bounded, failureReasonOf, reportHookFailure } from "./engine-calls.js";
import { parseArguments, toolResultText } from "../tools.js";
import type { TurnSession } from "./types.js";

/** Run one tool call: engine tools go to `handleToolCall`, the rest to the agent's executor. */
export async function dispatchTool(session: TurnSession, call: ToolCall, turnId: string, signal: AbortSignal | undefined): Promise<string> {
  const { runtime } = session;
  const sessionId = session.id;
  const name = call.function.name;
  const raw = call.function.arguments;
  const started = performance.now();
  const parsed = parseArguments(raw);

  if (session.engineToolNames.has(name)) {
    let result: string;
    let ok = true;
    let errorText: string | null = null;
    if (!parsed.ok) {
      ok = false;
      errorText = `invalid arguments: not valid JSON (${parsed.error})`;
      result = toolError(`Context engine tool '${name}' failed: ${errorText}`);
    } else {
      try {
        // A copy: an engine tool that edits the list cannot rewrite history.
        const options = { messages: cloneMessages(session.messages), sessionId, ...(signal ? { signal } : {}) };
        const args = parsed.value;
        const returned: unknown = await untilAborted(
          bounded(runtime, sessionId, turnId, "handleToolCall", () => runtime.engine.handleToolCall(name, args, options)),
          signal,
        );
        if (typeof returned !== "string") {
          ok = false;
          errorText = `returned ${returned === null ? "null" : typeof returned} instead of a JSON string`;
          result = toolError(`Context engine tool '${name}' failed: ${errorText}`);
        } else {
          result = returned;
          // An engine tool may answer `{"error": …}`: the call failed, whatever the transport says.
          const reported = reportedError(returned);
          if (reported !== null) {
            ok = false;
            errorText = reported;
          }
        }
      } catch (error) {
        ok = false;
        const reason = failureReasonOf(error);
        const timedOut = reason === "timeout";
        if (timedOut || reason === "skipped") reportHookFailure(runtime, sessionId, turnId, "handleToolCall", error, reason);
        errorText = timedOut ? `timed out: ${describeError(error)}` : describeError(error);
        result = toolError(`Context engine tool '${name}' failed: ${errorText}`);
      }
    }
    if (!ok) runtime.logger.warn("context engine tool failed", { sessionId, tool: name, error: errorText });
    runtime.bus.emit({
      type: "engine_tool.called",
      sessionId,
      turnId,
      name,
      callId: call.id,
      args: parsed.ok ? parsed.value : raw,
      ok,
      error: errorText,
      durationMs: performance.now() - started,
      resultChars: result.length,
    });
    return result;
  }

  let result: string;
  let ok = true;
  let errorText: string | null = null;
  const known = session.tools.some((t) => t.function.name === name);
  if (!runtime.executeTool) {
    ok = false;
    errorText = known ? "no tool executor is configured" : `unknown tool`;
    result = toolError(known ? `Tool '${name}' cannot run: no tool executor is configured` : `Unknown tool: ${name}`);
  } else {
    try {
      const returned = await untilAborted(
        Promise.resolve(
          runtime.executeTool({ id: call.id, name, rawArguments: raw, args: parsed.ok ? parsed.value : undefined, call }, { sessionId, turnId, messages: session.messages, signal }),
        ),
        signal,
      );
      result = toolResultText(returned);
    } catch (error) {
      ok = false;
      errorText = describeError(error);
      result = toolError(`Tool '${name}' failed: ${errorText}`);
    }
  }
  runtime.bus.emit({
    type: "tool.called",
    sessionId,
    turnId,
    name,
    callId: call.id,
    ok,
    error: errorText,
    durationMs: performance.now() - started,
    resultChars: result.length,
  });
  return result;
}

/** A tool call given up because the turn was aborted. */
class ToolInterruptedError extends Error {
  constructor() {
    super("the turn was cancelled while this tool ran");
  }
}

/**
 * The call's outcome, or a ToolInterruptedError as soon as `signal` aborts: a
 * tool that ignores the signal is left to finish on its own (its outcome
 * ignored), so an aborted turn settles at once.
 */
function untilAborted<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return call;
  // A rejection seen once the signal has aborted is the abort (the call's own late outcome is ignored).
  return raceAbort(call, signal).catch((error: unknown) => {
    throw signal.aborted ? new ToolInterruptedError() : error;
  });
}

/** The `error` of a tool result shaped `{"error": …}`, as text; null for any other result. */
export function reportedError(result: string): string | null {
  if (!result.trimStart().startsWith("{")) return null;
  let value: unknown;
  try {
    value = JSON.parse(result);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const error = (value as Record<string, unknown>).error;
  if (error === undefined || error === null || error === false) return null;
  if (typeof error === "string") return error || "failed";
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && message ? message : JSON.stringify(error);
}
