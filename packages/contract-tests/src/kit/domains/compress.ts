import { checkConversation, contentText, type ChatModel, type ContextEngine, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { allFixtures, fixtures } from "../../fixtures/conversations.js";
import { createScriptedChatModel as createFakeChatModel } from "@context-engine/core/test";
import type { ConversationFixture } from "../../fixtures/types.js";
import type { Harness } from "../harness.js";
import { registerCompressRules } from "./compress-rules.js";
import { newSessionId, startSession, usageFor } from "../session.js";
import { countTokens, describeError, lastUserText, settleWithin, snapshot } from "../util.js";

/** The author's own extra fixtures (e.g. recorded sessions), loaded once per harness. */
async function recorded(h: Harness): Promise<ConversationFixture[]> {
  const extra = h.options.extraFixtures;
  if (!extra) return [];
  return [...(typeof extra === "function" ? await extra() : extra)];
}

/** A fresh engine in a started session, told the prompt size of `messages`, as a host does before compress. */
async function prepared(
  h: Harness,
  fixture: ConversationFixture,
  options: { contextLength?: number; chatModel?: ChatModel | null } = {},
): Promise<{ engine: ContextEngine; messages: Message[]; tokens: number; sessionId: string }> {
  const engine = await h.create({ contextLength: options.contextLength ?? h.compactionContextLength, ...(options.chatModel !== undefined ? { chatModel: options.chatModel } : {}) });
  const sessionId = newSessionId("compress");
  await startSession(h, engine, sessionId);
  const messages = cloneMessages(fixture.messages);
  const tokens = countTokens(messages);
  engine.updateFromResponse(usageFor(messages));
  return { engine, messages, tokens, sessionId };
}

function isSystemRole(m: Message | undefined): boolean {
  return !!m && (m.role === "system" || m.role === "developer");
}

export function registerCompress(h: Harness): void {
  it("returns a valid OpenAI-format sequence (tool results follow their calls)", async () => {
    const list = [...allFixtures(), ...(await recorded(h))];
    for (const fixture of list) {
      const { engine, messages, tokens, sessionId } = await prepared(h, fixture);
      const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
      expect(Array.isArray(result), `compress(${fixture.name}) must return a list`).toBe(true);
      const problems = checkConversation(result, { allowTrailingInFlightCall: true });
      expect(
        problems.map((p) => p.message),
        `compress(${fixture.name}) returned an invalid conversation: keep every tool result right after the assistant message that called it, and drop or keep call and result together`,
      ).toEqual([]);
    }
  }, h.timeout * 2);

  it("keeps the system prompt", async () => {
    for (const fixture of [fixtures.codingSession, fixtures.contentParts, fixtures.systemPromptChat]) {
      const { engine, messages, tokens, sessionId } = await prepared(h, fixture);
      const systemText = contentText(messages[0]!.content);
      const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
      expect(isSystemRole(result[0]), `compress(${fixture.name}) must keep the system prompt as the first message`).toBe(true);
      expect(contentText(result[0]!.content).includes(systemText), `compress(${fixture.name}) must keep the system prompt's text`).toBe(true);
    }
  }, h.timeout);

  it("keeps the latest user request", async () => {
    for (const fixture of [fixtures.codingSession, fixtures.systemPromptChat, fixtures.parallelToolCalls]) {
      const { engine, messages, tokens, sessionId } = await prepared(h, fixture);
      const latest = lastUserText(messages)!;
      const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
      const kept = result.some((m) => contentText((m as { content?: unknown }).content).includes(latest));
      expect(kept, `compress(${fixture.name}) lost the latest user request ${JSON.stringify(latest.slice(0, 80))}: it must survive verbatim`).toBe(true);
    }
  }, h.timeout);

  it("does not grow a conversation that fits", async () => {
    const list = [...allFixtures(), ...(await recorded(h))];
    for (const fixture of list) {
      const { engine, messages, tokens, sessionId } = await prepared(h, fixture, { contextLength: h.contextLength });
      if (tokens >= engine.thresholdTokens) continue; // does not fit this window
      const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
      const after = countTokens(result);
      expect(after <= tokens, `compress(${fixture.name}) grew a conversation that fits (${tokens} → ${after} tokens, threshold ${engine.thresholdTokens}); return the input unchanged when there is nothing to do`).toBe(true);
    }
  }, h.timeout * 2);

  it("shrinks a conversation well over its threshold", async () => {
    const { engine, messages, tokens, sessionId } = await prepared(h, fixtures.codingSession);
    expect(tokens > engine.thresholdTokens * 1.5, `test setup: ${tokens} tokens should be well over thresholdTokens ${engine.thresholdTokens}`).toBe(true);
    const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
    const after = countTokens(result);
    expect(after < tokens, `compress returned ${after} tokens for a ${tokens}-token conversation over its threshold (${engine.thresholdTokens}, window ${engine.contextLength}); it must compact`).toBe(true);
  }, h.timeout);

  it("accepts a focusTopic", async () => {
    const { engine, messages, tokens, sessionId } = await prepared(h, fixtures.codingSession);
    let result: Message[] | undefined;
    try {
      result = await engine.compress(messages, { currentTokens: tokens, sessionId, focusTopic: "RetryPolicy.computeDelay and the injected Clock" });
    } catch (error) {
      expect.fail(`compress with a focusTopic threw ${describeError(error)}; engines without guided compression must ignore it`);
    }
    expect(Array.isArray(result) && result.length > 0, "compress with a focusTopic must return a non-empty list").toBe(true);
  }, h.timeout);

  it("ends promptly when its signal is aborted", async () => {
    const slow = createFakeChatModel({ mode: "slow", delayMs: 60_000 });
    const { engine, messages, tokens, sessionId } = await prepared(h, fixtures.codingSession, { chatModel: slow });
    const controller = new AbortController();
    const pending = Promise.resolve().then(() => engine.compress(messages, { currentTokens: tokens, sessionId, signal: controller.signal }));
    setTimeout(() => controller.abort(new Error("contract test abort")), 20).unref?.();
    const outcome = await settleWithin(pending, 20 + h.abortGraceMs);
    expect(outcome.settled, `compress did not settle within ${h.abortGraceMs} ms after its signal was aborted; pass options.signal to chatModel.complete and check signal.aborted between steps`).toBe(true);

    const { engine: e2, messages: m2, tokens: t2, sessionId: s2 } = await prepared(h, fixtures.codingSession, { chatModel: createFakeChatModel({ mode: "slow", delayMs: 60_000 }) });
    const pre = new AbortController();
    pre.abort(new Error("aborted before the call"));
    const second = await settleWithin(Promise.resolve().then(() => e2.compress(m2, { currentTokens: t2, sessionId: s2, signal: pre.signal })), h.abortGraceMs);
    expect(second.settled, `compress with an already aborted signal did not settle within ${h.abortGraceMs} ms`).toBe(true);
  }, h.timeout + 2 * h.abortGraceMs);

  it("returns a list that later changes to the input list do not affect", async () => {
    const { engine, messages, tokens, sessionId } = await prepared(h, fixtures.codingSession);
    const result = await engine.compress(messages, { currentTokens: tokens, sessionId });
    const after = countTokens(result);
    if (result === messages) {
      expect(after >= tokens, "compress compacted the input list in place and returned that same list: return a new list, so the host's later changes to its own list cannot alter the result").toBe(true);
      return; // nothing was compacted: returning the input itself is the documented no-op
    }
    const kept = snapshot(result);
    // The host reuses and rewrites its own list after the call.
    messages.splice(0, messages.length, { role: "user", content: "the host replaced its list" });
    expect(result, "the list returned by compress changed when the host changed its input list: do not return or keep a reference to the input list").toEqual(kept);
  }, h.timeout);

  it("copes with a failing, empty or missing summary model", async () => {
    const cases: Array<[string, ChatModel | null]> = [
      ["a model failing with a network error", createFakeChatModel({ mode: "failing", failWith: "network" })],
      ["a model failing with an auth error", createFakeChatModel({ mode: "failing", failWith: "auth" })],
      ["a model answering empty", createFakeChatModel({ mode: "empty" })],
      ["no chat model at all", null],
    ];
    for (const [label, chatModel] of cases) {
      const { engine, messages, tokens, sessionId } = await prepared(h, fixtures.codingSession, { chatModel });
      let result: Message[] | undefined;
      try {
        result = await engine.compress(messages, { currentTokens: tokens, sessionId });
      } catch (error) {
        expect.fail(`compress threw with ${label}: ${describeError(error)}; fall back (e.g. an extractive summary) or return the input unchanged`);
      }
      expect(Array.isArray(result) && result.length > 0, `compress with ${label} must return a non-empty list`).toBe(true);
    }
  }, h.timeout);

  registerCompressRules(h);
}
