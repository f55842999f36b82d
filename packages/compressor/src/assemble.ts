import type { Logger, Message, TokenCounter } from "@context-engine/core";
import { capText } from "./cap-text.js";
import { relievePressure } from "./fit.js";
import { RESTATED_REQUEST_HEADER, isSummaryMessage, unwrapMergedContent, wrapSummary } from "./markers.js";
import { placeSummary, restateRequest } from "./placement.js";
import type { CompactionPlan } from "./protection.js";
import type { CallInfo } from "./prune.js";
import { sanitizeToolPairs } from "./sanitize.js";
import { fitWindow } from "./window-fit.js";

export interface AssemblyInput {
  messages: readonly Message[];
  plan: CompactionPlan;
  /** The request restated after the summary (an earlier summary taken out of it), or null. */
  pinnedSource: Message | null;
  /** The task section that opens the summary (never shortened with it), or null. */
  restatedTask: string | null;
  body: string;
  counter: TokenCounter;
  /** Our-estimate ceiling the result should stay under, and the window it must fit whatever it costs. */
  limit: number;
  windowLimit: number;
  /** The model's window (0 = unknown), for the warning when it was not enough. */
  contextLength: number;
  wrapperTokens: number;
  calls: Map<string, CallInfo>;
  logger: Logger;
}

export interface Assembly {
  result: Message[];
  /** The result's size in our estimate. */
  after: number;
  /** The summary body as placed (shortened when nothing else made it fit). */
  body: string;
}

/** The task section (when there is one) leads the summary body. */
export function withTask(restatedTask: string | null, body: string): string {
  return restatedTask ? `${restatedTask}\n\n${body}` : body;
}

/**
 * head + summary + restated request + tail, then made to fit: kept tool
 * output trimmed first, then a shorter summary, then (past the window) older
 * steps dropped. The summary-bearing message and the latest request are never touched.
 */
export function assembleCompaction(p: AssemblyInput): Assembly {
  const { messages, plan, counter, limit, calls } = p;
  let body = p.body;
  const head = messages.slice(0, plan.headEnd);
  const rest: Message[] = [];
  const untouchable = new Set<Message>();
  if (p.pinnedSource) {
    const restated = restateRequest(p.pinnedSource, RESTATED_REQUEST_HEADER);
    rest.push(restated);
    untouchable.add(restated);
  }
  for (let i = plan.tailStart; i < messages.length; i++) {
    const m = messages[i]!;
    if (isSummaryMessage(m)) {
      // An older summary in the tail is folded into the new one.
      const unwrapped = unwrapMergedContent(m);
      if (unwrapped) rest.push(unwrapped);
      if (unwrapped && i === plan.latestUser) untouchable.add(unwrapped);
      continue;
    }
    rest.push(m);
    if (i === plan.latestUser) untouchable.add(m);
  }
  const assemble = () => placed(head, withTask(p.restatedTask, body), rest, untouchable);
  let result = assemble();
  let after = counter.countMessages(result);
  if (after > limit) {
    result = sanitizeToolPairs(relievePressure(result, limit, counter, untouchable, calls));
    after = counter.countMessages(result);
  }
  if (after > limit) {
    // Last concession: a shorter summary (the request section comes first and survives).
    const summaryTokens = counter.countText(body);
    const room = summaryTokens - (after - limit) - p.wrapperTokens;
    if (room >= 60) {
      body = capText(body, counter, room, "summary shortened to fit the context window");
      result = sanitizeToolPairs(relievePressure(assemble(), limit, counter, untouchable, calls));
      after = counter.countMessages(result);
    }
  }
  if (after > p.windowLimit) {
    result = sanitizeToolPairs(fitWindow(result, p.windowLimit, counter, untouchable));
    after = counter.countMessages(result);
    p.logger.warn("the conversation did not fit the context window: older steps dropped or the request shortened", {
      afterTokens: after,
      windowTokens: p.contextLength,
    });
  }
  if (after > limit) {
    p.logger.warn("compaction could not fit under the threshold; kept messages are larger than the window allows", {
      afterTokens: after,
      limitTokens: limit,
    });
  }
  return { result, after, body };
}

/** head + summary + rest, tool pairs checked; the summary-bearing message becomes untouchable. */
function placed(head: Message[], body: string, rest: Message[], untouchable: Set<Message>): Message[] {
  const out = placeSummary(head, wrapSummary(body), rest);
  // Either the standalone summary or the message it was merged into.
  untouchable.add(out[head.length]!);
  return sanitizeToolPairs(out);
}
