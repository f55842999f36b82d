import type { Message } from "@context-engine/core";
import type { CompactionTrigger } from "../events.js";
import type { PrefixImpact } from "./prefix-impact.js";

/** A message with its position in the list it was taken from (or put into). */
export interface PlacedMessage {
  index: number;
  message: Message;
  /** On disk, when `message` is a redacted copy: the digest of the exact original (what the live list holds). */
  digest?: string;
}

/** One committed compaction, as the host saw it: the list before and after the engine's pass. */
export interface LedgerCompaction {
  kind: "compaction";
  /** `c1`, `c2`, … in commit order within the session. */
  id: string;
  sessionId: string;
  engine: string;
  trigger: CompactionTrigger;
  /** The focus topic of a manual pass (`/compress <focus>`), else null. */
  focusTopic: string | null;
  /** When it committed (ISO 8601). */
  at: string;
  durationMs: number;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** The messages that left the context, whole, with their index in the list before. */
  removed: PlacedMessage[];
  /** What the engine put in (summaries, trimmed copies), with their index in the list after. */
  inserted: PlacedMessage[];
  /** Digests of every message before and after (`messageDigest`): enough to check and to undo the pass. */
  before: string[];
  after: string[];
  /** Prompt-cache impact: bytes of the request prefix that stay identical across the pass. */
  cache: PrefixImpact;
}

/** Messages put back into the live conversation by `undo` / `restore`. */
export interface LedgerRestore {
  kind: "restore";
  /** `r1`, `r2`, … */
  id: string;
  sessionId: string;
  at: string;
  /** The compactions undone, in the order they were unfolded (a later one that covered this one's summary first). */
  compactions: string[];
  /** How many messages came back. */
  messagesBack: number;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  cache: PrefixImpact;
}

/** A pin added or removed. */
export interface LedgerPinChange {
  kind: "pin" | "unpin";
  /** `e1`, `e2`, … */
  id: string;
  sessionId: string;
  at: string;
  pinId: string;
  text: string;
  /** The whole pins block's tokens after the change. */
  blockTokens: number;
}

export type LedgerEntry = LedgerCompaction | LedgerRestore | LedgerPinChange;
