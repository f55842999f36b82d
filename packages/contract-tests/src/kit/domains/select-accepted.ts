import { checkSelectionResult, type ContextEngine, type Message } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { countTokens } from "../util.js";

/** Engines count with their own tokenizer; the host's count may differ by a few percent. */
export const SELECTION_COUNTER_SLACK = 1.1;

/** The request at the start of the last user turn, and budgets from tight to nearly all of it. */
function budgetedRequests(h: Harness): Array<{ request: Message[]; budget: number }> {
  const all = cloneMessages(fixtures.codingSession.messages);
  let lastUser = all.length - 1;
  while (lastUser > 0 && all[lastUser]!.role !== "user") lastUser--;
  const request = all.slice(0, lastUser + 1);
  const size = countTokens(request);
  const budgets = [4000, Math.floor(size / 2), Math.floor(size * 0.8), h.contextLength];
  return budgets.map((budget) => ({ request: cloneMessages(request), budget }));
}

export function registerSelectAccepted(
  h: Harness,
  engineWithHistory: (h: Harness) => Promise<{ engine: ContextEngine; sessionId: string }>,
): void {
  // The host drops a selection it cannot use and sends the unselected request (fail-open): an engine
  // whose selections are dropped routes nothing. The rules are the contract's: a selection keeps the
  // host's system prefix as it was, answers every tool call, and fits the budget the host passed.
  it("returns selections the host can use: the system prefix unchanged and within budgetTokens", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.selectContext) return ctx.skip(`selectContext not implemented (${caps.from.selectContext})`);
    const { engine, sessionId } = await engineWithHistory(h);
    for (const { request, budget } of budgetedRequests(h)) {
      const incoming = structuredClone(request[request.length - 1]!);
      const result = await engine.selectContext(request, { conversationMessages: cloneMessages(request), incomingMessage: incoming, budgetTokens: budget, sessionId });
      if (result === null || result === undefined) continue;
      const check = checkSelectionResult(result, { request: cloneMessages(request), incoming });
      expect(check.ok ? null : check.reason, `selectContext (budget ${budget}) returned a selection the host refuses: keep the request's leading system message(s) unchanged and first, add no system message after them, and keep each tool call with its results`).toBeNull();
      const size = countTokens(result);
      expect(
        size <= budget * SELECTION_COUNTER_SLACK,
        `selectContext (budget ${budget}) returned ${size} tokens: a selection must fit options.budgetTokens (the host drops one that does not); choose fewer messages, or return null`,
      ).toBe(true);
    }
  }, h.timeout);
}
