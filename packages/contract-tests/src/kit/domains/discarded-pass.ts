import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel } from "@context-engine/core";
import { createScriptedChatModel } from "@context-engine/core/test";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import type { Harness } from "../harness.js";
import { usageFor } from "../session.js";
import { settleWithin } from "../util.js";
import { overThreshold } from "./over-threshold.js";
import { registerDiscardedReads } from "./discarded-reads.js";

// The host runs a pass under a timeout and discards it when it gives up (the signal is aborted).
// Whatever that pass produced must never reach durable state on its own: not to dataDir while it
// runs, and not at a later flush (session end, release). A later pass the host commits may reuse the
// work (LCM replays prepared summaries onto the same messages); that pass's commit publishes it.
// The late answer needs only to come after the abort (20 ms in): its timer starts when the engine asks
// the model, after the abort's timer was set, so it always fires later.
export const LATE_MS = 150;
/** How long an engine's own continuation after the late answer may take to publish (file writes included). */
const AFTER_ANSWER_MS = 100;

/** The files under `dir` whose bytes contain `marker`. */
function filesHolding(dir: string, marker: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(marker)) out.push(path.slice(dir.length));
    }
  };
  walk(dir);
  return out;
}

/** A summary model whose every request is kept, so a check can see what the engine showed it. */
export interface SeeingModel extends ChatModel {
  readonly prompts: string[];
  /** Resolves once the first (late) answer has been handed to the engine. */
  readonly answered: Promise<void>;
}

/**
 * A model that answers `marker` to its first request, after `delayMs` and ignoring the signal (as a
 * stuck HTTP call can); later calls answer normally. Every request's text is kept in `prompts`.
 */
export function firstAnswerOnce(marker: string, delayMs: number): SeeingModel {
  const normal = createScriptedChatModel();
  const prompts: string[] = [];
  let calls = 0;
  let markAnswered = () => {};
  const answered = new Promise<void>((resolve) => (markAnswered = resolve));
  return {
    model: "late-model",
    prompts,
    answered,
    async complete(request) {
      prompts.push(JSON.stringify(request.messages));
      if (calls++ > 0) return normal.complete(request);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      markAnswered();
      return { message: { role: "assistant", content: `## Summary\n${marker}` }, usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } };
    },
  };
}

/**
 * Start a pass, abort it 20 ms in as a host timeout does, and wait until the late answer has reached
 * the engine, also when the engine returned at the abort (work it left running may publish then).
 */
export async function discardedPass(h: Harness, marker: string) {
  const dataDir = h.tempDir();
  const model = firstAnswerOnce(marker, LATE_MS);
  const run = await overThreshold(h, { dataDir, chatModel: model });
  const kept = cloneMessages(run.messages);
  // What the next call reads of the engine before the pass: a discarded pass must leave it so.
  const before = { compressionCount: run.engine.compressionCount, shouldCompress: run.engine.shouldCompress(run.tokens) };
  const controller = new AbortController();
  let finishedFirst = false;
  const pending = Promise.resolve().then(() => run.engine.compress(cloneMessages(run.messages), { currentTokens: run.tokens, sessionId: run.sessionId, signal: controller.signal }));
  pending.then(
    () => (finishedFirst ||= !controller.signal.aborted),
    () => {},
  );
  setTimeout(() => controller.abort(new Error("host timeout")), 20).unref?.();
  await settleWithin(pending, LATE_MS + h.abortGraceMs);
  await settleWithin(model.answered, LATE_MS + h.abortGraceMs);
  await new Promise((r) => setTimeout(r, AFTER_ANSWER_MS));
  // A pass that completed before the abort (a synchronous engine, one that never asked the model) was
  // not cut short: what it counted, it counted for a pass that did run to the end.
  return { ...run, messages: kept, dataDir, model, before, abortedMidPass: !finishedFirst };
}

export function registerDiscardedPass(h: Harness): void {
  registerDiscardedReads(h);
  it("an aborted pass publishes nothing durable, even when its model answers late", async () => {
    const marker = `ABORTED-PASS-SUMMARY-${process.pid}-${Date.now()}`;
    const { dataDir } = await discardedPass(h, marker);
    expect(filesHolding(dataDir, marker), "the summary of a pass the host aborted reached dataDir: check signal.aborted after every await and publish only when the pass completes (the host discards an aborted pass)").toEqual([]);
  }, h.timeout + LATE_MS + 2 * h.abortGraceMs);

  it("a discarded pass reaches no durable state, when the turn completes, at the session's end or on release either", async () => {
    const marker = `DISCARDED-PASS-SUMMARY-${process.pid}-${Date.now()}`;
    const { engine, sessionId, messages, dataDir } = await discardedPass(h, marker);
    // The host kept its own list: the turn completes on it, the session ends with it, the engine is released.
    await engine.onTurnComplete(cloneMessages(messages), usageFor(messages), { sessionId, turnId: `${sessionId}-after-discard` });
    await engine.onSessionEnd(sessionId, messages);
    await h.dispose(engine);
    expect(filesHolding(dataDir, marker), "the summary of a pass the host discarded reached dataDir when the turn completed, the session ended or the engine was released: never queue a pass's results for a later flush before the pass completes unaborted").toEqual([]);
  }, h.timeout + LATE_MS + 2 * h.abortGraceMs);
}
