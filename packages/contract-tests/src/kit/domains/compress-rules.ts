import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkConversation, type ChatModel, type Message } from "@context-engine/core";
import { createScriptedChatModel } from "@context-engine/core/test";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { allFixtures, fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, usageFor } from "../session.js";
import { countTokens, settleWithin } from "../util.js";

const LATE_MS = 300;
const isSystem = (m: Message) => m.role === "system" || m.role === "developer";

/** Every file under `dir` with its bytes, to see whether anything was written. */
function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[path.slice(dir.length)] = readFileSync(path).toString("base64");
    }
  };
  walk(dir);
  return out;
}

async function overThreshold(h: Harness, dataDir?: string, chatModel: ChatModel = createScriptedChatModel()) {
  const engine = await h.create({ contextLength: h.compactionContextLength, chatModel, ...(dataDir ? { dataDir } : {}) });
  const sessionId = newSessionId("rules");
  await startSession(h, engine, sessionId, dataDir);
  const messages = cloneMessages(fixtures.codingSession.messages);
  engine.updateFromResponse(usageFor(messages));
  return { engine, sessionId, messages, tokens: countTokens(messages) };
}

export function registerCompressRules(h: Harness): void {
  it("keeps system messages only at the start (no summary as a system message mid-conversation)", async () => {
    for (const fixture of allFixtures()) {
      const engine = await h.create({ contextLength: h.compactionContextLength });
      const sessionId = newSessionId("system");
      await startSession(h, engine, sessionId);
      const messages = cloneMessages(fixture.messages);
      const lead = messages.findIndex((m) => !isSystem(m));
      if (messages.slice(Math.max(lead, 0)).some(isSystem)) continue; // the input itself has one mid-way
      engine.updateFromResponse(usageFor(messages));
      const result = await engine.compress(messages, { currentTokens: countTokens(messages), sessionId });
      const firstOther = result.findIndex((m) => !isSystem(m));
      const late = firstOther < 0 ? [] : result.slice(firstOther).filter(isSystem);
      expect(late.length, `compress(${fixture.name}) put ${late.length} system/developer message(s) after the conversation started; merge a summary into the first system message or send it as a user/assistant message`).toBe(0);
    }
  }, h.timeout * 2);

  it("force: a manual compress right after a compaction still compacts", async () => {
    const { engine, sessionId, messages, tokens } = await overThreshold(h);
    const first = await engine.compress(cloneMessages(messages), { currentTokens: tokens, sessionId });
    if (countTokens(first) >= tokens) return; // did not compact at all: the shrink check reports it
    const forced = await engine.compress(cloneMessages(messages), { currentTokens: tokens, sessionId, force: true });
    const after = countTokens(forced);
    expect(after < tokens, `compress(…, { force: true }) right after a compaction returned ${after} of ${tokens} tokens: force must bypass cooldowns and guards`).toBe(true);
    expect(checkConversation(forced, { allowTrailingInFlightCall: true }).map((p) => p.message)).toEqual([]);
  }, h.timeout);

  it("raises compressionCount by exactly one per compaction", async () => {
    const { engine, sessionId, messages, tokens } = await overThreshold(h);
    const before = engine.compressionCount;
    const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
    if (countTokens(result) >= tokens) return; // did not compact: the shrink check reports it
    expect(engine.compressionCount - before, `one compaction must raise compressionCount by 1 (was ${before}, now ${engine.compressionCount})`).toBe(1);
    // A conversation that fits: a call that compacts nothing must not count.
    const roomy = await h.create({ contextLength: h.contextLength });
    const small = cloneMessages(fixtures.systemPromptChat.messages);
    const out = await roomy.compress(small, { currentTokens: countTokens(small), sessionId: newSessionId("fits") });
    if (countTokens(out) >= countTokens(small)) {
      expect(roomy.compressionCount, "a compress call that compacted nothing must not raise compressionCount").toBe(0);
    }
  }, h.timeout);

  it("an aborted pass publishes nothing durable, even when its model answers late", async () => {
    const dataDir = h.tempDir();
    const marker = `ABORTED-PASS-SUMMARY-${process.pid}-${Date.now()}`;
    // A model that ignores the signal and answers after the host gave up (as a stuck HTTP call can).
    const late: ChatModel = {
      model: "late-model",
      async complete() {
        await new Promise((r) => setTimeout(r, LATE_MS));
        return { message: { role: "assistant", content: `## Summary\n${marker}` }, usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } };
      },
    };
    const { engine, sessionId, messages, tokens } = await overThreshold(h, dataDir, late);
    const controller = new AbortController();
    const pending = Promise.resolve().then(() => engine.compress(messages, { currentTokens: tokens, sessionId, signal: controller.signal }));
    setTimeout(() => controller.abort(new Error("host timeout")), 20).unref?.();
    await settleWithin(pending, LATE_MS + h.abortGraceMs);
    await new Promise((r) => setTimeout(r, 100));
    const holding = Object.entries(treeOf(dataDir)).filter(([, bytes]) => Buffer.from(bytes, "base64").includes(marker)).map(([file]) => file);
    expect(holding, "the summary of a pass the host aborted reached dataDir: check signal.aborted after every await and publish only when the pass completes (the host discards an aborted pass)").toEqual([]);
  }, h.timeout + LATE_MS + 2 * h.abortGraceMs);

  it("compress returns its list directly when the engine declares itself synchronous", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.synchronous) return ctx.skip("the engine may return a promise from compress");
    const { engine, sessionId, messages, tokens } = await overThreshold(h);
    const result = engine.compress(messages, { currentTokens: tokens, sessionId });
    expect(Array.isArray(result), "a synchronous engine's compress must return the list, not a promise").toBe(true);
  }, h.timeout);

  it("shouldCompressPreflight answers a boolean and leaves its input alone", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    for (const fixture of allFixtures()) {
      const messages = cloneMessages(fixture.messages);
      const kept = structuredClone(messages);
      const answer = await engine.shouldCompressPreflight(messages);
      expect(typeof answer, `shouldCompressPreflight(${fixture.name}) must return a boolean`).toBe("boolean");
      expect(messages, `shouldCompressPreflight(${fixture.name}) must not change the messages`).toEqual(kept);
    }
  }, h.timeout);

  it("pruneToolResultsOnly returns a valid list and counts what it pruned", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    for (const fixture of allFixtures()) {
      const messages = cloneMessages(fixture.messages);
      const before = countTokens(messages);
      const out = await engine.pruneToolResultsOnly(messages, { currentTokens: before });
      expect(out && Array.isArray(out.messages) && Number.isInteger(out.pruned) && out.pruned >= 0, `pruneToolResultsOnly(${fixture.name}) must return { messages, pruned ≥ 0 }`).toBe(true);
      expect(checkConversation(out.messages, { allowTrailingInFlightCall: true }).map((p) => p.message), `pruneToolResultsOnly(${fixture.name}) returned an invalid conversation`).toEqual([]);
      if (out.pruned === 0) expect(countTokens(out.messages), `pruneToolResultsOnly(${fixture.name}) reported 0 pruned but changed the size`).toBe(before);
      else expect(countTokens(out.messages) < before, `pruneToolResultsOnly(${fixture.name}) reported ${out.pruned} pruned but did not shrink`).toBe(true);
      expect(typeof engine.hasContentToCompress(messages), "hasContentToCompress must return a boolean").toBe("boolean");
    }
  }, h.timeout);
}

