import type { Message, TokenCounter } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { commandLine, redactedArguments, redactedText } from "./dropped-facts.js";
import { summaryTokenBudget } from "./budget.js";
import { wrapSummary } from "./markers.js";
import type { CompactionPlan } from "./protection.js";
import { taskSection } from "./task.js";
import { withoutSummary } from "./transcript.js";
import type { UnitIndex } from "./units.js";
import { rangeTokens } from "./units.js";

export interface SizingInput {
  messages: readonly Message[];
  index: UnitIndex;
  plan: CompactionPlan;
  /** The task statement to restate when the compaction drops it. */
  task: string | null | undefined;
  counter: TokenCounter;
  limit: number;
  ratio: number;
  contextLength: number;
  thresholdTokens: number;
}

export interface Sizing {
  /** The request to restate, without any summary an earlier compaction merged into it; null when none is pinned. */
  pinnedSource: Message | null;
  /** The task section opening the summary, or null (kept anyway, or too large). */
  restatedTask: string | null;
  /** Messages the result keeps verbatim (head, restated request, tail). */
  kept: Message[];
  /** Tokens the summary is asked for, the most it may take, and its wrapper's cost. */
  budget: number;
  summaryCap: number;
  wrapperTokens: number;
}

/** What the summary may take once the kept messages and the restated task are paid for. */
export function sizeSummary(p: SizingInput): Sizing {
  const { messages, index, plan, counter, limit } = p;
  const middleTokens = rangeTokens(index, plan.headEnd, plan.tailStart);
  const wrapperTokens = counter.countText(wrapSummary("")) + 8;
  const pinnedSource = plan.pinned >= 0 ? withoutSummary(messages[plan.pinned]!) : null;
  const kept = [...messages.slice(0, plan.headEnd), ...(pinnedSource ? [pinnedSource] : []), ...messages.slice(plan.tailStart)];
  const pinnedTokens = pinnedSource ? counter.countMessage(pinnedSource) + 40 : 0;
  // The task may take what the restated request and a minimal summary (150 tokens and its wrapper) leave; it opens the summary.
  const taskRoom = limit - pinnedTokens - 150 - wrapperTokens;
  const restatedTask = taskSection(p.task, kept, taskRoom, counter);
  const keptTokens =
    rangeTokens(index, 0, plan.headEnd) + rangeTokens(index, plan.tailStart, messages.length) + pinnedTokens + (restatedTask ? counter.countText(restatedTask) : 0);
  // When the kept messages leave little room, the summary gets what is left (at least a short one).
  const room = limit - keptTokens - wrapperTokens;
  const budget = Math.max(150, Math.min(summaryTokenBudget(middleTokens, p.ratio, p.contextLength, p.thresholdTokens), room));
  const summaryCap = Math.max(150, Math.min(Math.floor(budget * 1.5), room));
  return { pinnedSource, restatedTask, kept, budget, summaryCap, wrapperTokens };
}

/** What the result states verbatim besides the summary (redacted like the facts): the kept messages, their calls, the restated task. */
export function keptTextOf(kept: readonly Message[], restatedTask: string | null): string {
  const parts: string[] = restatedTask ? [restatedTask] : [];
  for (const m of kept) {
    parts.push(redactedText(m));
    // The call as the facts name it (one line), beside its arguments.
    for (const call of toolCallsOf(m)) parts.push(commandLine(call.function.name, redactedArguments(call)), redactedArguments(call));
  }
  return parts.join("\n");
}
