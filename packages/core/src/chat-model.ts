import type { AssistantMessage, Message } from "./messages.js";
import type { Usage } from "./usage.js";

/** One call to an LLM, as an engine needs it to summarise. */
export interface ChatModelRequest {
  messages: Message[];
  /** Model override; the ChatModel's own default otherwise. */
  model?: string;
  temperature?: number;
  /** Deliberately optional: summarisers should normally leave it unset. */
  maxTokens?: number;
  /** OpenAI function tools (`{ type: "function", function: {...} }`) the model may call. */
  tools?: Array<Record<string, unknown>>;
  signal?: AbortSignal;
}

export interface ChatModelResponse {
  message: AssistantMessage;
  usage?: Usage;
  /** `stop`, `length`, `tool_calls`, `content_filter`, … as the provider reports it. */
  finishReason?: string | null;
  model?: string;
}

/**
 * The minimal LLM call an engine needs. Hosts adapt their provider client to
 * it, so engines never depend on a host.
 */
export interface ChatModel {
  /** The default model name, for display and logs. */
  readonly model?: string;
  complete(request: ChatModelRequest): Promise<ChatModelResponse>;
}

/**
 * Failure classes an engine can act on. `auth`, `quota`, `network`,
 * `overloaded`, `empty` and `truncated` are terminal for a summary attempt.
 */
export type ChatModelErrorKind =
  | "auth"
  | "quota"
  | "rate_limit"
  | "network"
  | "overloaded"
  /** An HTTP 5xx other than an explicit capacity answer: retried, then the caller's fallback. */
  | "server_error"
  | "timeout"
  | "aborted"
  | "context_length"
  | "bad_request"
  | "empty"
  | "truncated"
  | "refusal"
  | "unknown";

/** A typed LLM failure. Hosts map provider errors to it; engines branch on `kind`. */
export class ChatModelError extends Error {
  override readonly name = "ChatModelError";
  readonly kind: ChatModelErrorKind;
  readonly status: number | undefined;
  constructor(kind: ChatModelErrorKind, message: string, options?: { status?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options?.status;
  }

  /** Whether a value is a ChatModelError, also across duplicated copies of this package. */
  static is(value: unknown): value is ChatModelError {
    return (
      value instanceof ChatModelError ||
      (value instanceof Error &&
        value.name === "ChatModelError" &&
        typeof (value as { kind?: unknown }).kind === "string")
    );
  }
}
