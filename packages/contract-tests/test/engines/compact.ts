import {
  ChatModelError,
  contentText,
  defaultTokenCounter,
  type ChatModel,
  type CompressOptions,
  type Message,
} from "@context-engine/core";

/** Index of the first message after `i`'s tool-call group (an assistant with calls and its results). */
function groupEnd(messages: readonly Message[], i: number): number {
  let end = i + 1;
  while (end < messages.length && messages[end]!.role === "tool") end++;
  return end;
}

/** A short extractive digest used when no model (or a failing one) is available. */
export function extractive(middle: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of middle) {
    if (m.role !== "user" && m.role !== "assistant") continue;
    const first = contentText(m.content).split("\n").find((l) => l.trim());
    if (first) lines.push(`- ${m.role}: ${first.trim().slice(0, 160)}`);
  }
  return lines.join("\n").slice(0, 2000) || "- (tool activity only)";
}

/**
 * The reference compaction: keep the system prompt and the first
 * `protectFirstN` messages, keep the last `protectLastN` messages (and the
 * latest user request), replace the middle with one summary message. Tool-call
 * groups are never split.
 */
export async function compactConversation(
  messages: Message[],
  options: CompressOptions,
  settings: { thresholdTokens: number; protectFirstN: number; protectLastN: number; chatModel?: ChatModel | undefined },
): Promise<{ messages: Message[]; compacted: boolean }> {
  const tokens = options.currentTokens ?? defaultTokenCounter.countMessages(messages);
  if (!options.force && tokens < settings.thresholdTokens) return { messages, compacted: false };
  if (options.signal?.aborted) return { messages, compacted: false };

  let headEnd = 0;
  while (headEnd < messages.length && (messages[headEnd]!.role === "system" || messages[headEnd]!.role === "developer")) headEnd++;
  for (let kept = 0; kept < settings.protectFirstN && headEnd < messages.length; kept++) headEnd = groupEnd(messages, headEnd);

  let tailStart = Math.max(headEnd, messages.length - settings.protectLastN);
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]!.role !== "user") lastUser--;
  if (lastUser >= headEnd && lastUser < tailStart) tailStart = lastUser;
  while (tailStart > headEnd && messages[tailStart]!.role === "tool") tailStart--;

  const middle = messages.slice(headEnd, tailStart);
  if (middle.length === 0) return { messages, compacted: false };

  let summary = "";
  if (settings.chatModel) {
    try {
      const focus = options.focusTopic ? `\nPreserve first what relates to: ${options.focusTopic}` : "";
      const response = await settings.chatModel.complete({
        messages: [
          { role: "system", content: "Summarise this part of a conversation for the assistant that continues it. Keep file names, identifiers and decisions." },
          { role: "user", content: middle.map((m) => `${m.role}: ${contentText(m.content)}`).join("\n\n") + focus },
        ],
        ...(options.signal ? { signal: options.signal } : {}),
      });
      summary = contentText(response.message.content).trim();
    } catch (error) {
      if (options.signal?.aborted || (ChatModelError.is(error) && error.kind === "aborted")) return { messages, compacted: false };
      summary = "";
    }
  }
  if (options.signal?.aborted) return { messages, compacted: false };
  if (!summary) summary = extractive(middle);

  const note: Message = { role: "user", content: `[Summary of ${middle.length} earlier messages]\n${summary}` };
  return { messages: [...messages.slice(0, headEnd), note, ...messages.slice(tailStart)], compacted: true };
}

/** A pair-safe tail of `request` that fits `budget`, after its system messages; null when it all fits. */
export function selectWithinBudget(request: readonly Message[], budget: number): Message[] | null {
  const count = (ms: readonly Message[]) => defaultTokenCounter.countMessages(ms);
  if (budget <= 0 || count(request) <= budget) return null;
  let head = 0;
  while (head < request.length && (request[head]!.role === "system" || request[head]!.role === "developer")) head++;
  let start = request.length - 1;
  let used = count(request.slice(0, head));
  while (start > head && used + defaultTokenCounter.countMessage(request[start - 1]!) <= budget * 0.8) {
    start--;
    used += defaultTokenCounter.countMessage(request[start]!);
  }
  while (start > head && request[start]!.role === "tool") start--;
  return [...request.slice(0, head), ...request.slice(start)];
}
