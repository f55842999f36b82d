import { checkConversation, isPlainObject, overridesHook, type ContextEngine, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, replayTurns, startSession } from "../session.js";
import { deepEqual, snapshot } from "../util.js";
import { registerSelectAccepted } from "./select-accepted.js";

interface Scenario {
  label: string;
  request: Message[];
  conversation: Message[];
  incoming: Message;
  budget: number;
}

/** A request at the start of the last user turn, with a roomy and a tight budget. */
function scenarios(h: Harness): Scenario[] {
  const all = cloneMessages(fixtures.codingSession.messages);
  let lastUser = all.length - 1;
  while (lastUser > 0 && all[lastUser]!.role !== "user") lastUser--;
  const request = all.slice(0, lastUser + 1);
  return [h.contextLength, 4000].map((budget) => ({
    label: `budget ${budget}`,
    request: cloneMessages(request),
    conversation: cloneMessages(request),
    incoming: structuredClone(request[request.length - 1]!),
    budget,
  }));
}

async function engineWithHistory(h: Harness): Promise<{ engine: ContextEngine; sessionId: string }> {
  const engine = await h.create();
  const sessionId = newSessionId("select");
  await startSession(h, engine, sessionId);
  const history = cloneMessages(fixtures.codingSession.messages);
  let lastUser = history.length - 1;
  while (lastUser > 0 && history[lastUser]!.role !== "user") lastUser--;
  await replayTurns(engine, history.slice(0, lastUser), sessionId);
  return { engine, sessionId };
}

function select(engine: ContextEngine, s: Scenario, sessionId: string) {
  return engine.selectContext(s.request, { conversationMessages: s.conversation, incomingMessage: s.incoming, budgetTokens: s.budget, sessionId });
}

export function registerSelectContext(h: Harness): void {
  it("returns null or a non-empty valid list of messages", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.selectContext) return ctx.skip(`selectContext not implemented (${caps.from.selectContext})`);
    const { engine, sessionId } = await engineWithHistory(h);
    for (const s of scenarios(h)) {
      const result = await select(engine, s, sessionId);
      if (result === null || result === undefined) continue;
      expect(Array.isArray(result) && result.length > 0, `selectContext (${s.label}) must return null or a non-empty list; [] and non-lists are ignored by the host`).toBe(true);
      expect(result.every((m) => isPlainObject(m)), `selectContext (${s.label}) must return plain message objects`).toBe(true);
      const problems = checkConversation(result, { allowTrailingInFlightCall: true });
      expect(problems.map((p) => p.message), `selectContext (${s.label}) returned an invalid conversation`).toEqual([]);
    }
  }, h.timeout);

  it("gives an equal selection for the same input twice", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.selectContext) return ctx.skip(`selectContext not implemented (${caps.from.selectContext})`);
    const { engine, sessionId } = await engineWithHistory(h);
    for (const s of scenarios(h)) {
      const first = snapshot(await select(engine, s, sessionId));
      const again = scenarios(h).find((x) => x.label === s.label)!;
      const second = snapshot(await select(engine, again, sessionId));
      expect(
        deepEqual(first ?? null, second ?? null),
        `selectContext (${s.label}) gave different selections for the same input: keep selections stable when nothing changed, or every request loses the provider's prompt cache`,
      ).toBe(true);
    }
  }, h.timeout);

  it("does not mutate the request or the conversation", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.selectContext) return ctx.skip(`selectContext not implemented (${caps.from.selectContext})`);
    const { engine, sessionId } = await engineWithHistory(h);
    for (const s of scenarios(h)) {
      const before = snapshot({ request: s.request, conversation: s.conversation, incoming: s.incoming });
      await select(engine, s, sessionId);
      expect(s.request, `selectContext (${s.label}) changed the request list it was given; build a new list instead`).toEqual(before.request);
      expect(s.conversation, `selectContext (${s.label}) changed conversationMessages`).toEqual(before.conversation);
      expect(s.incoming, `selectContext (${s.label}) changed incomingMessage`).toEqual(before.incoming);
    }
  }, h.timeout);

  registerSelectAccepted(h, engineWithHistory);

  it("is the inherited no-op when not implemented", async (ctx) => {
    const caps = await h.capabilities();
    if (caps.selectContext) return ctx.skip("selectContext is implemented");
    const engine = await h.create();
    expect(overridesHook(engine, "selectContext"), "the engine overrides selectContext but does not declare it: declare capabilities.selectContext: true, or remove the override so hosts can skip it").toBe(false);
    const s = scenarios(h)[0]!;
    expect(await select(engine, s, newSessionId("noop")), "the default selectContext must return null").toBeNull();
  }, h.timeout);
}
