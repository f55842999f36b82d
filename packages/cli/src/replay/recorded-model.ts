import type { ChatModel, ChatModelRequest, ChatModelResponse, Message, TokenCounter } from "@context-engine/core";
import { ChatModelError, toolCallsOf } from "@context-engine/core";

/** Text of the closing answer invented when a recorded turn ends on tool results. */
export const SYNTHETIC_ANSWER = "(replay: the recording ends here)";

/**
 * A ChatModel that answers with the recorded assistant messages of the turn
 * being replayed, in order, and hands out the recorded tool results for the
 * host's tool executor. Usage is computed from the request actually received
 * (not copied from the recording), as a provider would report it for the
 * engine's compacted context.
 */
export class RecordedAnswers implements ChatModel {
  readonly model: string;
  readonly #counter: TokenCounter;
  #answers: Message[] = [];
  #next = 0;
  #results = new Map<string, Message>();
  #served = new Set<string>();
  #synthesized = 0;
  #unanswered = 0;
  #missingResults = 0;
  #requests = 0;

  constructor(options: { counter: TokenCounter; model?: string }) {
    this.#counter = options.counter;
    this.model = options.model ?? "recorded";
  }

  /** Load one recorded turn's steps (assistant messages and tool results, in order). */
  startTurn(steps: readonly Message[]): void {
    this.#answers = steps.filter((m) => m.role === "assistant").map((m) => structuredClone(m));
    this.#next = 0;
    this.#results = new Map();
    this.#served = new Set();
    for (const m of steps) {
      if (m.role === "tool") this.#results.set(m.tool_call_id, m);
    }
  }

  /** Recorded answers of the current turn the host did not ask for (it ended the turn earlier). */
  get unusedAnswers(): number {
    return this.#answers.length - this.#next;
  }

  /** Answers invented because a recorded turn ends on tool results. */
  get synthesized(): number {
    return this.#synthesized;
  }

  /** Answers invented for turns with no recorded answer at all (two user messages in a row). */
  get unanswered(): number {
    return this.#unanswered;
  }

  /** Tool calls that had no recorded result. */
  get missingResults(): number {
    return this.#missingResults;
  }

  get requests(): number {
    return this.#requests;
  }

  async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    if (request.signal?.aborted) throw new ChatModelError("aborted", "request aborted");
    this.#requests++;
    const promptTokens =
      this.#counter.countMessages(request.messages) + (request.tools?.length ? this.#counter.countText(JSON.stringify(request.tools)) : 0);
    let message = this.#answers[this.#next];
    if (message) this.#next++;
    else {
      if (this.#answers.length === 0) this.#unanswered++;
      else this.#synthesized++;
      message = { role: "assistant", content: SYNTHETIC_ANSWER };
    }
    const completionTokens = this.#counter.countMessage(message);
    return {
      message: structuredClone(message) as ChatModelResponse["message"],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      finishReason: toolCallsOf(message).length ? "tool_calls" : "stop",
      model: this.model,
    };
  }

  /** The recorded result of a tool call, by id; a JSON error string when none was recorded. */
  toolResult(callId: string, name: string): string {
    const recorded = this.#results.get(callId);
    if (recorded) {
      this.#served.add(callId);
      const content = recorded.content;
      return typeof content === "string" ? content : JSON.stringify(content);
    }
    this.#missingResults++;
    return JSON.stringify({ error: `replay: no recorded result for tool call ${callId} (${name})` });
  }
}
