import type { Session, TurnResult } from "@context-engine/host";
import { EXIT, type ExitCode } from "../errors.js";
import type { Palette } from "../format/color.js";
import type { TextSink } from "../io.js";
import type { TranscriptStore } from "./transcripts.js";
import { describeTurnFailure } from "./turn-errors.js";
import type { TurnView } from "./turn-view.js";

export interface TurnDeps {
  session: Session;
  view: TurnView;
  err: TextSink;
  palette: Palette;
  endpoint: { baseURL: string | undefined; requestTimeoutMs: number };
  store: TranscriptStore | null;
  /** After the turn's messages are saved (or dropped): save what else the turn changed. */
  afterSave?: () => void;
}

/** Send one message with a cancel handle; show the answer or the failure once; save the turn. */
export async function runOneTurn(text: string, deps: TurnDeps, controller: AbortController): Promise<{ result: TurnResult; exitCode: ExitCode }> {
  const { session, view, palette: p } = deps;
  view.begin();
  let result: TurnResult;
  try {
    result = await session.send(text, { signal: controller.signal });
  } catch (error) {
    view.end(null);
    throw error;
  }
  // A failed or cancelled question leaves the conversation as it was, so sending it again does not duplicate it.
  const kept = result.status === "completed" || !dropTurn(session, result.newMessages);
  if (deps.store && kept) {
    try {
      deps.store.append(session.id, result.newMessages);
    } catch (error) {
      view.notice(p.yellow(`⚠ could not save the transcript: ${(error as Error).message}`));
    }
  }
  deps.afterSave?.();
  if (result.status === "completed") {
    view.end(result.text || p.dim("(no text)"));
    if (result.exitReason === "length") deps.err.write(`${p.yellow("⚠ the answer was cut off at the model's output limit")}\n`);
    return { result, exitCode: EXIT.ok };
  }
  const partial = view.streamedChars;
  view.end(null);
  const notKept = kept ? "" : "; your message is not kept in the conversation, so sending it again does not repeat it";
  if (partial > 0) deps.err.write(`${p.yellow(`⚠ the answer above is partial (${partial} characters streamed before the turn ended); it is not part of the conversation`)}\n`);
  if (result.status === "interrupted") {
    deps.err.write(`${p.yellow(`⚠ cancelled: the request was stopped${notKept}`)}\n`);
    return { result, exitCode: EXIT.interrupted };
  }
  const failure = describeTurnFailure(result, deps.endpoint);
  deps.err.write(`${p.red(`✖ ${failure.title}`)}\n`);
  for (const hint of failure.hints) deps.err.write(`  ${p.dim(hint)}\n`);
  if (notKept) deps.err.write(`  ${p.dim(`(The failed message is not kept in the conversation${/again/i.test(failure.hints.join(" ")) ? ": sending it again does not repeat it" : ""}.)`)}\n`);
  return { result, exitCode: failure.exitCode };
}

/**
 * Take a turn that did not complete back out of the session: only when the conversation still ends
 * with exactly the messages that turn appended (the same objects), so nothing else is ever removed.
 * The session's list is live (see Session.messages); this is the one place the CLI edits it.
 */
function dropTurn(session: Session, added: readonly unknown[]): boolean {
  const live = session.messages as unknown[];
  if (added.length === 0 || live.length < added.length) return false;
  const start = live.length - added.length;
  if (!added.every((m, i) => live[start + i] === m)) return false;
  live.splice(start, added.length);
  return true;
}
