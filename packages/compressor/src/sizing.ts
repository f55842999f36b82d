import type { Message, TokenCounter } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { commandLine, redactedArguments, redactedText } from "./dropped-facts.js";
import { summaryTokenBudget } from "./budget.js";
import { relievePressure } from "./fit.js";
import { RESTATED_REQUEST_HEADER, wrapSummary } from "./markers.js";
import { restateRequest } from "./placement.js";
import type { CompactionPlan } from "./protection.js";
import type { CallInfo } from "./prune.js";
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
  /** tool_call_id → call, to trim kept tool output as assembly will. */
  calls: Map<string, CallInfo>;
}

/** The shortest summary a compaction writes (tokens, wrapper aside). */
const MIN_SUMMARY = 150;

export interface Sizing {
  /** The request to restate, without any summary an earlier compaction merged into it; null when none is pinned. */
  pinnedSource: Message | null;
  /** The task section opening the summary, or null (kept anyway, or too large). */
  restatedTask: string | null;
  /** Messages the result keeps (head, restated request, tail), their tool output trimmed when assembly must trim it. */
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
  const untrimmed = [...messages.slice(0, plan.headEnd), ...(pinnedSource ? [pinnedSource] : []), ...messages.slice(plan.tailStart)];
  const pinnedTokens = pinnedSource ? counter.countMessage(pinnedSource) + 40 : 0;
  // The task may take what the restated request and a minimal summary (150 tokens and its wrapper) leave; it opens the summary.
  const taskRoom = limit - pinnedTokens - MIN_SUMMARY - wrapperTokens;
  const restatedTask = taskSection(p.task, untrimmed, taskRoom, counter);
  const keptTokens =
    rangeTokens(index, 0, plan.headEnd) + rangeTokens(index, plan.tailStart, messages.length) + pinnedTokens + (restatedTask ? counter.countText(restatedTask) : 0);
  // When the kept messages leave little room, the summary gets what is left (at least a short one).
  let room = limit - keptTokens - wrapperTokens;
  let kept = untrimmed;
  if (room < MIN_SUMMARY) {
    const trimmed = afterUnavoidableTrims(p, pinnedSource, restatedTask ? counter.countText(restatedTask) : 0, wrapperTokens);
    // What the trims take out is no longer kept: its facts are the summary's to state.
    if (trimmed.room > room) ({ room, kept } = trimmed);
  }
  const budget = Math.max(MIN_SUMMARY, Math.min(summaryTokenBudget(middleTokens, p.ratio, p.contextLength, p.thresholdTokens), room));
  const summaryCap = Math.max(MIN_SUMMARY, Math.min(Math.floor(budget * 1.5), room));
  return { pinnedSource, restatedTask, kept, budget, summaryCap, wrapperTokens };
}

/**
 * Kept messages over the limit leave the summary nothing, yet assembly trims
 * their tool output (`relievePressure`) even for the shortest summary: those
 * trims will happen whatever the summary's size, and the room they free is
 * the summary's. Trimming the kept messages here as assembly will, for the
 * shortest summary, says how much that is (a larger summary within it causes
 * no further trim), and what stays kept.
 */
function afterUnavoidableTrims(p: SizingInput, pinnedSource: Message | null, taskTokens: number, wrapperTokens: number): { room: number; kept: Message[] } {
  const { messages, plan, counter } = p;
  const restated = pinnedSource ? restateRequest(pinnedSource, RESTATED_REQUEST_HEADER) : null;
  const list = [...messages.slice(0, plan.headEnd), ...(restated ? [restated] : []), ...messages.slice(plan.tailStart)];
  const untouchable = new Set<Message>(restated ? [restated] : []);
  if (plan.latestUser >= plan.tailStart) untouchable.add(messages[plan.latestUser]!);
  const fixed = taskTokens + wrapperTokens;
  const kept = relievePressure(list, p.limit - fixed - MIN_SUMMARY, counter, untouchable, p.calls);
  return { room: p.limit - counter.countMessages(kept) - fixed, kept };
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
