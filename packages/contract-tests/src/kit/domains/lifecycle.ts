import type { ContextEngine, Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, turnEnds, usageFor } from "../session.js";
import { exampleArguments, toolSchemasOf } from "../tool-args.js";
import { describeError } from "../util.js";
import { registerLifecycleContinues } from "./lifecycle-keeps.js";

/** Run one step and turn a throw into a failure that names the step. */
async function step<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    expect.fail(`${what} threw ${describeError(error)}`);
  }
}

/** Drive a conversation turn by turn as a host does; returns the (possibly compacted) history. */
async function driveTurns(engine: ContextEngine, source: readonly Message[], sessionId: string, label: string): Promise<Message[]> {
  let history: Message[] = [];
  let from = 0;
  let turn = 0;
  for (const end of turnEnds(source)) {
    history = [...history, ...cloneMessages(source.slice(from, end))];
    from = end;
    turn++;
    const usage = usageFor(history);
    await step(`${label}: updateFromResponse (turn ${turn})`, () => engine.updateFromResponse(usage));
    const should = await step(`${label}: shouldCompress (turn ${turn})`, () => engine.shouldCompress());
    expect(typeof should, "shouldCompress must return a boolean").toBe("boolean");
    if (should) {
      const compacted = await step(`${label}: compress (turn ${turn})`, () => engine.compress(history, { sessionId, currentTokens: usage.prompt_tokens }));
      expect(Array.isArray(compacted), `${label}: compress must return a list`).toBe(true);
      history = compacted;
    }
    await step(`${label}: onTurnComplete (turn ${turn})`, () =>
      engine.onTurnComplete(cloneMessages(history), usage, { sessionId, turnId: `${sessionId}-${turn}` }),
    );
  }
  return history;
}

export function registerLifecycle(h: Harness): void {
  it("runs start, responses, checks, compress and end in the documented order", async () => {
    const engine = await h.create({ skipUpdateModel: true });
    const sessionId = newSessionId("life");
    await step("onSessionStart", () => startSession(h, engine, sessionId));
    await step("updateModel", () => engine.updateModel(h.model, h.compactionContextLength));
    const history = await driveTurns(engine, fixtures.codingSession.messages, sessionId, "session");
    const forced = await step("compress (manual, force)", () => engine.compress(history, { sessionId, force: true }));
    expect(Array.isArray(forced), "compress must return a list").toBe(true);
    await step("getStatus", () => engine.getStatus());
    await step("onSessionEnd", () => engine.onSessionEnd(sessionId, forced));
  }, h.timeout);

  it("survives the mid-session boundary onSessionEnd(old) then onSessionStart(new)", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    const oldId = newSessionId("old");
    const newId = newSessionId("new");
    await step("onSessionStart(old)", () => startSession(h, engine, oldId));
    const pre = await driveTurns(engine, fixtures.codingSession.messages.slice(0, 30), oldId, "old session");
    const compacted = await step("compress before the boundary", () => engine.compress(pre, { sessionId: oldId, force: true }));
    await step("onSessionEnd(old)", () => engine.onSessionEnd(oldId, pre));
    await step("onSessionStart(new, boundaryReason compression)", () =>
      engine.onSessionStart(newId, { boundaryReason: "compression", oldSessionId: oldId, platform: "contract-tests", model: h.model }),
    );
    // The session continues on the new id with the compacted history.
    const rest = cloneMessages(fixtures.codingSession.messages.slice(30));
    const history = [...compacted, ...rest];
    await step("updateFromResponse after the boundary", () => engine.updateFromResponse(usageFor(history)));
    const after = await step("compress after the boundary", () => engine.compress(history, { sessionId: newId, currentTokens: usageFor(history).prompt_tokens }));
    expect(Array.isArray(after), "compress after the boundary must return a list").toBe(true);
    await step("selectContext after the boundary", () => engine.selectContext(cloneMessages(history), { conversationMessages: cloneMessages(history), budgetTokens: engine.contextLength, sessionId: newId }));
    await step("onTurnComplete after the boundary", () => engine.onTurnComplete(cloneMessages(history), usageFor(history), { sessionId: newId }));
    for (const schema of toolSchemasOf(engine)) {
      const result = await step(`tool ${schema.name} after the boundary`, () => engine.handleToolCall(schema.name, exampleArguments(schema.parameters, "clock"), { sessionId: newId, messages: history }));
      expect(typeof result, `tool ${schema.name} must still return a string after the boundary`).toBe("string");
    }
    // In-place mode: the same id ends and starts again.
    await step("onSessionEnd(new)", () => engine.onSessionEnd(newId, after));
    await step("onSessionStart(same id, in place)", () => engine.onSessionStart(newId, { boundaryReason: "compression", oldSessionId: newId }));
    const again = await step("compress after an in-place boundary", () => engine.compress(after, { sessionId: newId, force: true }));
    expect(Array.isArray(again), "compress after an in-place boundary must return a list").toBe(true);
  }, h.timeout);

  registerLifecycleContinues(h);
}
