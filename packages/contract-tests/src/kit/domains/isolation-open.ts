import { contentText, type ChatModel, type ContextEngine, type Message } from "@context-engine/core";
import { createScriptedChatModel } from "@context-engine/core/test";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, replayTurns, startSession, usageFor } from "../session.js";
import { allText, countTokens, markConversation } from "../util.js";

// One instance serves many sessions (the contract: passes of different sessions may even run at
// once). Per-conversation state, such as the previous summary an iterative engine updates, must be
// keyed by session: session B's compaction may neither carry nor show its model session A's content.
// A host starts a new session without resetting the engine (a gateway never does), so clearing state
// in onSessionReset alone is not enough.

interface Marked {
  sessionId: string;
  secret: string;
  messages: Message[];
}

/** The secret at the start and at the end of every user and tool message: an engine that keeps only a head or a tail still carries it. */
function marked(label: string, secret: string): Marked {
  const messages = markConversation(cloneMessages(fixtures.codingSession.messages), secret).map((m) =>
    (m.role === "user" || m.role === "tool") && typeof m.content === "string" ? ({ ...m, content: `[${secret}] ${m.content}` } as Message) : m,
  );
  return { sessionId: newSessionId(label), secret, messages };
}

/**
 * A summary model that ends every answer with a tag of its own and remembers, per tag, the prompt it
 * answered: whatever an engine keeps of a session's summaries carries that session's tags.
 */
function taggingModel(options: Parameters<typeof createScriptedChatModel>[0] = {}) {
  const inner = createScriptedChatModel(options);
  const answers: Array<{ tag: string; prompt: string }> = [];
  const prompts: string[] = [];
  const model: ChatModel = {
    model: inner.model,
    async complete(request) {
      const prompt = allText(request.messages);
      prompts.push(prompt);
      const response = await inner.complete(request);
      const tag = `ANSWER-TAG-${answers.length + 1}-Q${process.pid}`;
      answers.push({ tag, prompt });
      return { ...response, message: { ...response.message, content: `${contentText(response.message.content)}\n${tag}` } };
    },
  };
  /** Tags of the answers given to prompts holding `secret` (that session's summaries). */
  const tagsOf = (secret: string) => answers.filter((a) => a.prompt.includes(secret)).map((a) => a.tag);
  return { model, prompts, tagsOf };
}
type Tagging = ReturnType<typeof taggingModel>;

/** One compaction of `side`'s conversation, after its turns were reported; the prompts it sent the model. */
async function pass(engine: ContextEngine, tagging: Tagging, side: Marked, force = false) {
  const from = tagging.prompts.length;
  await replayTurns(engine, side.messages, side.sessionId);
  engine.updateFromResponse(usageFor(side.messages));
  const out = await engine.compress(cloneMessages(side.messages), { currentTokens: countTokens(side.messages), sessionId: side.sessionId, ...(force ? { force } : {}) });
  // Run alone, every prompt since `from` is this pass's; run alongside another pass, they cannot be told apart.
  return { out, prompts: tagging.prompts.slice(from).join("\n") };
}

function expectApart(result: { out: Message[]; prompts: string | null }, other: Marked, tagging: Tagging, context: string): void {
  const leaked = [other.secret, ...tagging.tagsOf(other.secret)];
  const inOut = leaked.find((t) => allText(result.out).includes(t));
  expect(inOut, `${context}: the compaction carries the other session's content or summary (${inOut}); key per-conversation state (e.g. the previous summary) by options.sessionId`).toBeUndefined();
  if (result.prompts === null) return;
  const inPrompt = leaked.find((t) => result.prompts!.includes(t));
  expect(inPrompt, `${context}: the compaction showed its summary model the other session's content or summary (${inPrompt}); key per-conversation state by options.sessionId`).toBeUndefined();
}

export function registerOpenIsolation(h: Harness): void {
  it("a session started after another ended, with no reset between, never sees its content", async () => {
    const tagging = taggingModel();
    const engine = await h.create({ contextLength: h.compactionContextLength, chatModel: tagging.model });
    const a = marked("ended-a", "ENDED-A-SECRET-4471");
    const b = marked("next-b", "NEXT-B-SECRET-8093");
    await startSession(h, engine, a.sessionId);
    await pass(engine, tagging, a);
    await engine.onSessionEnd(a.sessionId, a.messages);
    // No onSessionReset: a gateway simply starts the next conversation on the same engine.
    await startSession(h, engine, b.sessionId);
    expectApart(await pass(engine, tagging, b), a, tagging, "session B after A ended");
  }, h.timeout);

  it("two sessions' passes running at the same time keep their state apart", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.concurrentSessions) return ctx.skip("the engine serves one session per instance");
    const tagging = taggingModel({ mode: "slow", delayMs: 20 });
    const engine = await h.create({ contextLength: h.compactionContextLength, chatModel: tagging.model });
    const a = marked("parallel-a", "PARALLEL-A-SECRET-6121");
    const b = marked("parallel-b", "PARALLEL-B-SECRET-3389");
    await startSession(h, engine, a.sessionId);
    await startSession(h, engine, b.sessionId);
    // Both passes in flight together (the contract: pool siblings), then each session's next pass.
    const [firstA, firstB] = await Promise.all([pass(engine, tagging, a), pass(engine, tagging, b)]);
    // Passes running at once must not share instance fields either (keep a pass's state in the pass).
    expectApart({ out: firstA.out, prompts: null }, b, tagging, "session A's pass, run alongside B's");
    expectApart({ out: firstB.out, prompts: null }, a, tagging, "session B's pass, run alongside A's");
    const later = (side: Marked, first: Message[]) => pass(engine, tagging, { ...side, messages: [...cloneMessages(first), { role: "user", content: `[${side.secret}] And now? Go on with the plan.` }] }, true);
    expectApart(await later(a, firstA.out), b, tagging, "session A's next pass");
    expectApart(await later(b, firstB.out), a, tagging, "session B's next pass");
  }, h.timeout * 2);
}
