import { checkConversation, toolCallsOf, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, usageFor } from "../session.js";
import { countTokens } from "../util.js";

/**
 * Every prefix of `messages` a host compresses before a request: it ends with the turn's user message
 * or a complete group of tool results, and is valid on its own. An engine's cut point moves with the
 * length, so across the prefixes it lands before, inside and after every tool group, parallel ones included.
 */
function hostPrefixes(messages: readonly Message[]): Message[][] {
  const out: Message[][] = [];
  for (let end = 2; end <= messages.length; end++) {
    const prefix = messages.slice(0, end) as Message[];
    const last = prefix[prefix.length - 1]!.role;
    if ((last !== "user" && last !== "tool") || !prefix.some((m) => m.role === "user")) continue;
    if (checkConversation(prefix).length > 0) continue;
    out.push(prefix);
  }
  return out;
}

/**
 * A long conversation with parallel tool groups: each two consecutive single-call steps of the coding
 * session become one assistant message with both calls, followed by both results.
 */
function widenedCodingSession(): Message[] {
  const source = cloneMessages(fixtures.codingSession.messages);
  const out: Message[] = [];
  for (let i = 0; i < source.length; i++) {
    const [a, ta, b, tb] = source.slice(i, i + 4);
    const single = (m: Message | undefined) => m?.role === "assistant" && toolCallsOf(m).length === 1;
    if (single(a) && ta?.role === "tool" && single(b) && tb?.role === "tool") {
      out.push({ ...a!, tool_calls: [...toolCallsOf(a!), ...toolCallsOf(b!)] } as Message, ta, tb);
      i += 3;
    } else out.push(source[i]!);
  }
  return out;
}

export function registerCompressCuts(h: Harness): void {
  // The contract's rule is about every cut, not the few a fixture happens to produce: a result must
  // follow its call, and a pass drops or keeps a call together with all its results.
  it("keeps tool calls and results together wherever its cut falls (forced passes over every prefix)", async () => {
    const caps = await h.capabilities();
    const conversations: Array<[string, Message[]]> = [
      [fixtures.parallelToolCalls.name, cloneMessages(fixtures.parallelToolCalls.messages)],
      ["codingSession with parallel calls", widenedCodingSession()],
    ];
    for (const [name, conversation] of conversations) {
      // One instance serves the prefixes as separate sessions (cheap); one per prefix when it cannot.
      let shared = caps.concurrentSessions ? await h.create({ contextLength: h.compactionContextLength }) : undefined;
      for (const prefix of hostPrefixes(conversation)) {
        const engine = shared ?? (await h.create({ contextLength: h.compactionContextLength }));
        const sessionId = newSessionId("cuts");
        await startSession(h, engine, sessionId);
        const messages = cloneMessages(prefix);
        engine.updateFromResponse(usageFor(messages));
        const result = await engine.compress(messages, { currentTokens: countTokens(messages), sessionId, force: true });
        const problems = Array.isArray(result) ? checkConversation(result, { allowTrailingInFlightCall: true }) : [];
        expect(
          problems.map((p) => `${p.message} (at ${p.index})`),
          `compress(${name}, first ${prefix.length} messages, force) returned an invalid conversation: when the cut falls inside a tool group (an assistant message with several calls and their results), move it before the assistant message or after the last result`,
        ).toEqual([]);
        if (!shared) await h.dispose(engine);
      }
      shared = undefined;
    }
  }, h.timeout * 3);
}
