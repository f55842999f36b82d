import type { Message, TokenCounter } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { RESTATED_TASK_HEADER } from "./markers.js";
import { redactSecrets } from "./redact.js";

/**
 * The task statement (the conversation's first user request) is what every
 * later step is judged against; a summary can only paraphrase or cut it. So a
 * compaction that drops it opens the summary with it, verbatim between markers (secrets
 * redacted), whatever its size, as long as it fits in `room` tokens; a larger
 * one is left to the summary, which quotes its start. It leads the summary so
 * that shortening a summary (which cuts from the end) keeps it.
 */
export const TASK_END = "[END OF TASK]";

export function taskSection(task: string | null | undefined, kept: readonly Message[], room: number, counter: TokenCounter): string | null {
  if (!task) return null;
  for (const m of kept) if (contentText(m.content).includes(task)) return null;
  // Not quoted line by line: a task that quotes text itself ("> …") must read exactly as it was written.
  const section = `${RESTATED_TASK_HEADER}\n${redactSecrets(task)}\n${TASK_END}`;
  return counter.countText(section) <= room ? section : null;
}
