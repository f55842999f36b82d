/**
 * Typed errors a turn can end with. They never escape `Session.send` as
 * throws: a turn result carries them, so a CLI can show them and a replay
 * can count them.
 */

export type HostErrorCode =
  | "context_budget_exceeded"
  | "compression_timeout"
  | "session_closed"
  | "invalid_input"
  | "provider_error"
  | "iteration_limit"
  | "engine_unavailable"
  | "pins_over_cap";

export class HostError extends Error {
  override readonly name: string = "HostError";
  readonly code: HostErrorCode;
  constructor(code: HostErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/**
 * The request would not fit the model's window even after compaction, so it
 * was not sent. `estimatedTokens` counts messages and tool definitions.
 */
export class ContextBudgetExceededError extends HostError {
  override readonly name = "ContextBudgetExceededError";
  readonly estimatedTokens: number;
  readonly contextLength: number;
  readonly compactionTried: boolean;
  /** Tokens of the window kept free for the answer (`outputReserveTokens`). */
  readonly outputReserveTokens: number;
  constructor(estimatedTokens: number, contextLength: number, compactionTried: boolean, outputReserveTokens = 0) {
    // No advice here: what to do depends on the application (a chat's /compress, a replay's window).
    super(
      "context_budget_exceeded",
      `request of ~${estimatedTokens} tokens exceeds the model's ${contextLength}-token window` +
        (outputReserveTokens > 0 ? ` less the ${outputReserveTokens} tokens kept for the answer` : "") +
        (compactionTried ? " even after compaction" : "") +
        "; it was not sent",
    );
    this.estimatedTokens = estimatedTokens;
    this.contextLength = contextLength;
    this.compactionTried = compactionTried;
    this.outputReserveTokens = outputReserveTokens;
  }
}

/**
 * `switchModel` to a smaller window was refused: the session's pins would
 * take more than the new cap (`host.pins.max_share` of the new window).
 * Nothing changed; unpin `overBy` tokens' worth or raise the share.
 */
export class PinsOverCapError extends HostError {
  override readonly name = "PinsOverCapError";
  constructor(
    readonly model: string,
    readonly contextLength: number,
    readonly blockTokens: number,
    readonly cap: number,
    readonly overBy: number,
    pins: readonly { id: string; tokens: number }[],
  ) {
    super(
      "pins_over_cap",
      `not switched to ${model}: the pins take ~${blockTokens} tokens, over the cap of ${cap} for its ${contextLength}-token window by ${overBy} ` +
        `(pins: ${pins.map((p) => `${p.id} ~${p.tokens}`).join(", ")}); unpin some or raise host.pins.max_share, then switch again`,
    );
  }
}

/** Thrown by session methods after `end()`. */
export class SessionClosedError extends HostError {
  override readonly name = "SessionClosedError";
  constructor(sessionId: string) {
    super("session_closed", `session ${sessionId} has ended`);
  }
}

export { describeError } from "@context-engine/core";
