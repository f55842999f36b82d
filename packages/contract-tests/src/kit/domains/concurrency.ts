import type { ContextEngine, Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import { createScriptedChatModel as createFakeChatModel } from "@context-engine/core/test";
import type { Harness } from "../harness.js";
import { registerIsolation } from "./isolation.js";
import { newSessionId, replayTurns, startSession, usageFor } from "../session.js";
import { exampleArguments, toolSchemasOf } from "../tool-args.js";
import { allText, markConversation } from "../util.js";

interface Side {
  sessionId: string;
  /** A word tool queries search for. */
  needle: string;
  /** Stored next to the needle; seeing it in the other session's output means a leak (echoing the query does not). */
  secret: string;
  messages: Message[];
}

function side(label: string, needle: string, secret: string): Side {
  const messages = markConversation(cloneMessages(fixtures.codingSession.messages), `${needle} ${secret}`);
  return { sessionId: newSessionId(label), needle, secret, messages };
}

async function outputsOf(engine: ContextEngine, me: Side, other: Side, compressed: Message[]): Promise<Array<[string, unknown]>> {
  let lastUser = me.messages.length - 1;
  while (lastUser > 0 && me.messages[lastUser]!.role !== "user") lastUser--;
  const request = cloneMessages(me.messages.slice(0, lastUser + 1));
  const selection = await engine.selectContext(request, {
    conversationMessages: cloneMessages(request),
    incomingMessage: structuredClone(request[request.length - 1]!),
    budgetTokens: 4000,
    sessionId: me.sessionId,
  });
  const out: Array<[string, unknown]> = [
    ["compress", compressed],
    ["selectContext", selection],
  ];
  for (const schema of toolSchemasOf(engine)) {
    const args = exampleArguments(schema.parameters, other.needle);
    try {
      out.push([`tool ${schema.name}`, await engine.handleToolCall(schema.name, args, { sessionId: me.sessionId, messages: me.messages })]);
    } catch {
      // Throwing tools are the tools domain's concern.
    }
  }
  return out;
}

export function registerConcurrency(h: Harness): void {
  it("two interleaved sessions on one instance never see each other's messages", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.concurrentSessions) return ctx.skip("the engine serves one session per instance");
    const engine = await h.create({ contextLength: h.compactionContextLength, chatModel: createFakeChatModel({ mode: "slow", delayMs: 15 }) });
    const a = side("alpha", "zqalphaneedle", "ALPHA-SECRET-3141");
    const b = side("bravo", "zqbravoneedle", "BRAVO-SECRET-2718");
    await Promise.all([startSession(h, engine, a.sessionId), startSession(h, engine, b.sessionId)]);
    // Turns of the two sessions arrive interleaved, as on a gateway serving both.
    await Promise.all([replayTurns(engine, a.messages, a.sessionId), replayTurns(engine, b.messages, b.sessionId)]);
    engine.updateFromResponse(usageFor(a.messages));
    const [ca, cb] = await Promise.all([
      engine.compress(cloneMessages(a.messages), { sessionId: a.sessionId, currentTokens: usageFor(a.messages).prompt_tokens }),
      engine.compress(cloneMessages(b.messages), { sessionId: b.sessionId, currentTokens: usageFor(b.messages).prompt_tokens }),
    ]);
    const [outA, outB] = await Promise.all([outputsOf(engine, a, b, ca), outputsOf(engine, b, a, cb)]);
    for (const [what, value] of outA) {
      expect(allText(value).includes(b.secret), `session A's ${what} output contains text of session B: key all per-session state by options.sessionId`).toBe(false);
    }
    for (const [what, value] of outB) {
      expect(allText(value).includes(a.secret), `session B's ${what} output contains text of session A: key all per-session state by options.sessionId`).toBe(false);
    }
  }, h.timeout);

  registerIsolation(h);
}
