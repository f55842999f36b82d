import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel } from "@context-engine/core";
import { createScriptedChatModel } from "@context-engine/core/test";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import type { Harness } from "../harness.js";
import { settleWithin } from "../util.js";
import { overThreshold } from "./over-threshold.js";

// The host runs a pass under a timeout and discards it when it gives up (the signal is aborted).
// Whatever that pass produced must never reach durable state on its own: not to dataDir while it
// runs, and not at a later flush (session end, release). A later pass the host commits may reuse the
// work (LCM replays prepared summaries onto the same messages); that pass's commit publishes it.
const LATE_MS = 300;

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

/** A model that ignores the signal and answers `marker` after the host gave up (as a stuck HTTP call can); later calls answer normally. */
function lateOnce(marker: string): ChatModel {
  const normal = createScriptedChatModel();
  let calls = 0;
  return {
    model: "late-model",
    async complete(request) {
      if (calls++ > 0) return normal.complete(request);
      await new Promise((r) => setTimeout(r, LATE_MS));
      return { message: { role: "assistant", content: `## Summary\n${marker}` }, usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } };
    },
  };
}

/** Start a pass, abort it 20 ms in as a host timeout does, and wait until the late answer has arrived. */
async function discardedPass(h: Harness, marker: string) {
  const dataDir = h.tempDir();
  const run = await overThreshold(h, { dataDir, chatModel: lateOnce(marker) });
  const kept = cloneMessages(run.messages);
  const controller = new AbortController();
  const pending = Promise.resolve().then(() => run.engine.compress(cloneMessages(run.messages), { currentTokens: run.tokens, sessionId: run.sessionId, signal: controller.signal }));
  setTimeout(() => controller.abort(new Error("host timeout")), 20).unref?.();
  await settleWithin(pending, LATE_MS + h.abortGraceMs);
  await new Promise((r) => setTimeout(r, 100));
  return { ...run, messages: kept, dataDir };
}

export function registerDiscardedPass(h: Harness): void {
  it("an aborted pass publishes nothing durable, even when its model answers late", async () => {
    const marker = `ABORTED-PASS-SUMMARY-${process.pid}-${Date.now()}`;
    const { dataDir } = await discardedPass(h, marker);
    expect(filesHolding(dataDir, marker), "the summary of a pass the host aborted reached dataDir: check signal.aborted after every await and publish only when the pass completes (the host discards an aborted pass)").toEqual([]);
  }, h.timeout + LATE_MS + 2 * h.abortGraceMs);

  it("a discarded pass reaches no durable state, at the session's end or on release either", async () => {
    const marker = `DISCARDED-PASS-SUMMARY-${process.pid}-${Date.now()}`;
    const { engine, sessionId, messages, dataDir } = await discardedPass(h, marker);
    // The host kept its own list and ends the session with it; then the engine is released.
    await engine.onSessionEnd(sessionId, messages);
    await h.dispose(engine);
    expect(filesHolding(dataDir, marker), "the summary of a pass the host discarded reached dataDir when the session ended or the engine was released: never queue a pass's results for a later flush before the pass completes unaborted").toEqual([]);
  }, h.timeout + LATE_MS + 2 * h.abortGraceMs);
}
