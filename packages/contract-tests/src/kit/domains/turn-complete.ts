import { overridesHook, type Message, type TurnCompleteMeta, type Usage } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, turnEnds, usageFor } from "../session.js";
import { deepEqual, snapshot } from "../util.js";

function turns(sessionId: string): Array<{ label: string; messages: Message[]; usage: Usage | null; meta: TurnCompleteMeta }> {
  const coding = cloneMessages(fixtures.codingSession.messages);
  return [
    { label: "a completed turn", messages: coding, usage: usageFor(coding), meta: { sessionId, turnId: "t1", apiCallCount: 4, exitReason: "completed" } },
    { label: "an interrupted turn without usage", messages: cloneMessages(fixtures.parallelToolCalls.messages), usage: null, meta: { sessionId, turnId: "t2", interrupted: true } },
    { label: "a failed turn with content parts", messages: cloneMessages(fixtures.contentParts.messages), usage: null, meta: { sessionId, turnId: "t3", failed: true, exitReason: "provider_error" } },
  ];
}

export function registerTurnComplete(h: Harness): void {
  it("does not mutate the messages, usage or meta it receives", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.onTurnComplete) return ctx.skip(`onTurnComplete not implemented (${caps.from.onTurnComplete})`);
    const engine = await h.create();
    const sessionId = newSessionId("turn");
    await startSession(h, engine, sessionId);
    for (const turn of turns(sessionId)) {
      const before = snapshot({ messages: turn.messages, usage: turn.usage, meta: turn.meta });
      await engine.onTurnComplete(turn.messages, turn.usage, turn.meta);
      expect(turn.messages, `onTurnComplete (${turn.label}) changed the messages it received: treat them as read-only and copy what you keep`).toEqual(before.messages);
      expect(turn.usage, `onTurnComplete (${turn.label}) changed the usage it received`).toEqual(before.usage);
      expect(turn.meta, `onTurnComplete (${turn.label}) changed the meta it received`).toEqual(before.meta);
    }
  }, h.timeout);

  it("returns nothing (its return value is ignored)", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.onTurnComplete) return ctx.skip(`onTurnComplete not implemented (${caps.from.onTurnComplete})`);
    const engine = await h.create();
    const sessionId = newSessionId("turn");
    await startSession(h, engine, sessionId);
    for (const turn of turns(sessionId)) {
      const returned = await engine.onTurnComplete(turn.messages, turn.usage, turn.meta);
      expect(returned, `onTurnComplete (${turn.label}) returned a value; hosts ignore it, so return nothing (void) rather than relying on it`).toBeUndefined();
    }
  }, h.timeout);

  it("is the inherited no-op when not implemented", async (ctx) => {
    const caps = await h.capabilities();
    if (caps.onTurnComplete) return ctx.skip("onTurnComplete is implemented");
    const engine = await h.create();
    expect(overridesHook(engine, "onTurnComplete"), "the engine overrides onTurnComplete but does not declare it: declare capabilities.onTurnComplete: true, or remove the override").toBe(false);
  }, h.timeout);

  it("never changes a list it received earlier, on later calls either", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.onTurnComplete) return ctx.skip(`onTurnComplete not implemented (${caps.from.onTurnComplete})`);
    const engine = await h.create();
    const sessionId = newSessionId("turn-kept");
    await startSession(h, engine, sessionId);
    // As a host does: every turn gets a new shallow copy of the growing transcript, sharing its message objects.
    const transcript = cloneMessages(fixtures.codingSession.messages);
    const received: Array<{ list: Message[]; kept: Message[] }> = [];
    const changed = () => received.findIndex((r) => !deepEqual(r.list, r.kept));
    let turn = 0;
    for (const end of turnEnds(transcript)) {
      const list = transcript.slice(0, end);
      received.push({ list, kept: snapshot(list) });
      await engine.onTurnComplete(list, usageFor(list), { sessionId, turnId: `kept-${++turn}`, apiCallCount: 1 });
      const at = changed();
      expect(at, `onTurnComplete call ${turn} changed the list (or its messages) it received in call ${at + 1}: copy what you keep, never change a list or message after the call returns`).toBe(-1);
    }
    await engine.selectContext(cloneMessages(transcript), { conversationMessages: cloneMessages(transcript), budgetTokens: 4000, sessionId });
    await engine.compress(cloneMessages(transcript), { sessionId, currentTokens: usageFor(transcript).prompt_tokens });
    await engine.onSessionEnd(sessionId, cloneMessages(transcript));
    const at = changed();
    expect(at, `a later selectContext, compress or onSessionEnd changed the list (or its messages) onTurnComplete received in call ${at + 1}: copy what you keep`).toBe(-1);
  }, h.timeout);
}
