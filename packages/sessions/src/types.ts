import type { Message, Usage } from "@context-engine/core";

/** The recorded-session formats this package reads. */
export type SessionFormat = "openai-jsonl" | "mini-swe-agent" | "swe-agent" | "openhands" | "tau-bench" | "locomo";

export const SESSION_FORMATS: readonly SessionFormat[] = [
  "openai-jsonl",
  "mini-swe-agent",
  "swe-agent",
  "openhands",
  "tau-bench",
  "locomo",
];

/** Where a session came from, so derived artefacts can carry the right attribution. */
export interface SessionSource {
  /** The file it was read from. */
  path: string;
  /** SPDX-style licence of the data, when known (`MIT`, `CC-BY-NC-4.0`). */
  license?: string;
  /** Upstream repository, commit and path, when known. */
  origin?: string;
}

/** One recorded conversation, converted to valid OpenAI chat format. */
export interface RecordedSession {
  id: string;
  format: SessionFormat;
  source: SessionSource;
  /** Valid OpenAI-format messages: every tool call is answered by its result. */
  messages: Message[];
  /** OpenAI function tools (`{ type: "function", function: {...} }`) the agent had, when known or inferable. */
  tools?: Array<Record<string, unknown>>;
  /**
   * When each message was said (epoch milliseconds), in the order of `messages`; null where the
   * recording has no time for it. Absent when it has none at all.
   */
  times?: Array<number | null>;
  /** Recorded usage per assistant message, in the order of the assistant messages, when the data has it. */
  usage?: Array<Usage | null>;
  /** Format-specific facts kept from the source (task ids, rewards, LoCoMo QA, …). */
  meta?: Record<string, unknown>;
  /** What the reader had to fix to make the conversation valid (renamed duplicate tool-call ids, …). */
  repairs?: string[];
}

/** A user turn: the user message and the recorded assistant/tool messages that followed it. */
export interface Turn {
  user: Message;
  steps: Message[];
}

export interface ReadSessionsOptions {
  /** Skip auto-detection. */
  format?: SessionFormat;
  /** At most this many sessions (in file order). */
  limit?: number;
}
