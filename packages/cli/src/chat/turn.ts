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
  if (deps.store) {
    try {
      deps.store.append(session.id, result.newMessages);
    } catch (error) {
      view.notice(p.yellow(`⚠ could not save the transcript: ${(error as Error).message}`));
    }
  }
  if (result.status === "completed") {
    view.end(result.text || p.dim("(no text)"));
    if (result.exitReason === "length") deps.err.write(`${p.yellow("⚠ the answer was cut off at the model's output limit")}\n`);
    return { result, exitCode: EXIT.ok };
  }
  view.end(null);
  if (result.status === "interrupted") {
    deps.err.write(`${p.yellow("⚠ cancelled: the request was stopped")}\n`);
    return { result, exitCode: EXIT.interrupted };
  }
  const failure = describeTurnFailure(result, deps.endpoint);
  deps.err.write(`${p.red(`✖ ${failure.title}`)}\n`);
  for (const hint of failure.hints) deps.err.write(`  ${p.dim(hint)}\n`);
  return { result, exitCode: failure.exitCode };
}
