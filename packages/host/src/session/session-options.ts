import type { Message, SecretRuleOptions, SessionStartOptions } from "@context-engine/core";

export interface OpenSessionOptions {
  /** Defaults to a random UUID. */
  sessionId?: string;
  /** The model name sent with every request. */
  model: string;
  /** The model's context window in tokens; 0 or absent means unknown (no window check). */
  contextLength?: number;
  provider?: string;
  baseUrl?: string;
  /** Passed to `onSessionStart`: where the engine may keep files. */
  dataDir?: string;
  platform?: string;
  conversationId?: string;
  /** A system prompt placed first in the conversation. */
  systemPrompt?: string;
  /** Earlier messages to resume from (after the system prompt). */
  history?: Message[];
  /**
   * Where the compaction ledger is kept: `<ledgerDir>/<session id>.ledger.jsonl`,
   * read back when it exists (a resumed session keeps its ledger and pins). Absent: in memory only.
   */
  ledgerDir?: string;
  /**
   * Which secret rules redact what the ledger writes to disk (core's rules, as LCM's `redaction` setting: `disable`,
   * `extra`, `allow`). Default: every built-in rule.
   */
  ledgerRedaction?: SecretRuleOptions;
  /** Pins to start with when the ledger holds none (texts, pinned verbatim). */
  pins?: string[];
}

export type SessionEndReason = "end" | "reset" | "expired" | "close";

/** What `updateModel` gets besides the model and window: the provider and base URL the session was opened with. */
export function modelOptionsOf(options: OpenSessionOptions): { provider?: string; baseUrl?: string } {
  const o: { provider?: string; baseUrl?: string } = {};
  if (options.provider) o.provider = options.provider;
  if (options.baseUrl) o.baseUrl = options.baseUrl;
  return o;
}

/** What `onSessionStart` gets for a session on `model` with `contextLength`. */
export function startOptionsOf(options: OpenSessionOptions, model: string, contextLength: number): SessionStartOptions {
  const o: SessionStartOptions = { model, contextLength };
  if (options.dataDir !== undefined) o.dataDir = options.dataDir;
  if (options.platform !== undefined) o.platform = options.platform;
  if (options.conversationId !== undefined) o.conversationId = options.conversationId;
  return o;
}
