import type { Message, SecretRuleOptions } from "@context-engine/core";

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
