import type { Message } from "@context-engine/core";
import type { CompactionDetail } from "./compaction-detail.js";
import type { CompactionLedgerFacts } from "./metrics.js";

/**
 * What the replay records of one engine's run, normalised from the host's
 * events so the metrics do not depend on the event wire shape.
 */
export type ReplayObservation =
  | {
      type: "request";
      /** 0-based index of the recorded turn being replayed. */
      turn: number;
      /** The final message list sent to the provider. */
      messages: readonly Message[];
      /** The host's token figure for the request, when it reports one. */
      tokens?: number;
      /** Tokens of the tool schemas sent with the request, when known. */
      toolTokens?: number;
      /** Whether the engine's selectContext replaced this request's messages. */
      selection?: "applied" | "ignored" | "not_implemented";
    }
  | {
      type: "compaction";
      turn: number;
      /** `unchanged`: the engine ran but returned the conversation as it was. */
      outcome: "committed" | "unchanged" | "failed" | "timed_out";
      durationMs: number;
      beforeTokens?: number;
      afterTokens?: number;
      /** `auto`, `preflight`, `manual`, … as the host names the trigger. */
      trigger?: string;
      reason?: string;
      /** The span replaced and the summary put in (committed compactions seen with both lists). */
      detail?: CompactionDetail;
      /** The host ledger's entry for it. */
      ledger?: CompactionLedgerFacts;
    }
  /** The host refused to send a request that did not fit the window (it ends the turn). */
  | { type: "refused"; turn: number; tokens: number }
  /** The engine trimmed old tool results without a compaction. */
  | { type: "pruned"; turn: number; pruned: number; beforeTokens: number; afterTokens: number }
  | { type: "selection"; turn: number; applied: boolean; reason?: string }
  | { type: "engine_tool"; turn: number; name: string; ok: boolean }
  | { type: "turn_completed"; turn: number }
  | { type: "warning"; turn: number; message: string }
  /** An engine hook threw; the host carried on (fail-open), but the run fails its checks. */
  | { type: "engine_error"; turn: number; message: string };
