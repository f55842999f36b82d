import type { ContextEngine, Message, Usage } from "@context-engine/core";
import { contentText, defaultTokenCounter, toolCallsOf } from "@context-engine/core";

/** One request the replay sent, and the compaction (if any) that ran just before it. */
export interface RequestRecord {
  /** Index in the original stream of the message this request answers. */
  at: number;
  messages: Message[];
  tokens: number;
  /** Original messages that were in the conversation before the compaction and are gone after it. */
  compacted: Message[] | null;
}

export interface ReplayOptions {
  engine: ContextEngine;
  sessionId: string;
  /** The recorded stream: a request is made before every assistant message. */
  messages: readonly Message[];
  /** When each recorded message was said (epoch ms), passed to the engine as a host passes `messageTimes`. */
  times?: readonly (number | null)[];
  onRequest?: (record: RequestRecord) => void;
}

const usageOf = (promptTokens: number): Usage => ({ prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens }) as Usage;

/** Every text of a message a model would read (content and tool-call arguments). */
export function messageText(m: Message): string {
  const parts = [contentText(m.content)];
  for (const call of toolCallsOf(m)) {
    parts.push(call.function.name);
    try {
      const args = JSON.parse(call.function.arguments) as unknown;
      parts.push(typeof args === "object" && args !== null ? Object.values(args).map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n") : String(args));
    } catch {
      parts.push(call.function.arguments);
    }
  }
  return parts.filter(Boolean).join("\n");
}

/**
 * Drive an engine through the public hooks as the reference host does, without
 * a model: before each recorded assistant message the conversation is checked
 * with `shouldCompress` (and compacted with `compress`), the request is the
 * engine's `selectContext` or the conversation, usage is reported with
 * `updateFromResponse`, and a turn ends (`onTurnComplete`) before each new user
 * message and at the end. Returns the final conversation.
 */
export async function replay(options: ReplayOptions): Promise<Message[]> {
  const { engine, sessionId } = options;
  const counter = defaultTokenCounter;
  await engine.onSessionStart(sessionId, {});
  let conversation: Message[] = [];
  const originals = new Set<Message>();
  let inTurn = false;
  const saidAt = new Map<Message, number | null>(options.times ? options.messages.map((m, i) => [m, options.times![i] ?? null]) : []);
  // The host's times line up with the list it passes; an engine's own messages (summaries) have none.
  const timesOf = (list: readonly Message[]) => (options.times ? { messageTimes: list.map((m) => saidAt.get(m) ?? null) } : {});
  for (const [index, message] of options.messages.entries()) {
    if (message.role === "assistant") {
      let compacted: Message[] | null = null;
      const tokens = counter.countMessages(conversation);
      if (engine.shouldCompress(tokens)) {
        const before = conversation;
        conversation = await engine.compress(conversation.slice(), { currentTokens: tokens, sessionId, ...timesOf(conversation) });
        const after = new Set(conversation);
        const afterJson = new Set(conversation.map((m) => JSON.stringify(m)));
        compacted = before.filter((m) => originals.has(m) && !after.has(m) && !afterJson.has(JSON.stringify(m)));
      }
      const selected = await engine.selectContext(conversation, { sessionId, ...timesOf(conversation) });
      const request = selected ?? conversation;
      const requestTokens = counter.countMessages(request);
      options.onRequest?.({ at: index, messages: request.slice(), tokens: requestTokens, compacted });
      engine.updateFromResponse(usageOf(requestTokens));
    } else if (message.role === "user" && inTurn) {
      await engine.onTurnComplete(conversation.slice(), null, { sessionId, ...timesOf(conversation) });
    }
    if (message.role === "user") inTurn = true;
    originals.add(message);
    conversation.push(message);
  }
  await engine.onTurnComplete(conversation.slice(), null, { sessionId, ...timesOf(conversation) });
  return conversation;
}
