import { checkConversation, contentText } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { PinsOverCapError } from "../errors.js";
import type { RequestShape } from "../ledger/prefix-impact.js";
import type { SessionLedger } from "../ledger/ledger.js";
import { pinsBlock, placePins } from "../ledger/pins-block.js";
import type { Pin } from "../ledger/pins-block.js";
import { unfoldCompaction } from "../ledger/restore.js";
import type { LedgerRestore } from "../ledger/types.js";
import type { HostRuntime } from "../runtime.js";

/** What restore and pins work on: the session's live list, its window and its ledger. */
export interface LedgerView {
  readonly id: string;
  readonly runtime: HostRuntime;
  readonly messages: readonly Message[];
  readonly contextLength: number;
  /** What the messages may take in a request (0: unknown window, no check). */
  readonly inputBudget: number;
  /** The request around the messages (model, tools), for the ledger's cache figure. */
  readonly request: RequestShape;
  readonly ledger: SessionLedger;
  pins: Pin[];
  /** Publish a new live list (figures of the old one no longer apply). */
  setMessages(messages: Message[]): void;
}

export type RestoreResult =
  | { status: "restored"; entry: LedgerRestore }
  | { status: "does_not_fit"; compactions: string[]; messagesBack: number; tokensNeeded: number; budget: number; overBy: number }
  | { status: "nothing_to_undo" }
  | { status: "unknown_id"; id: string; known: string[] }
  | { status: "already_restored"; id: string; by: string }
  | { status: "invalid"; reason: string };

/**
 * Put the messages compaction `id` removed (the last one still applied
 * when null) back into the live list, when the result fits the input
 * budget and keeps every tool call with its results; else nothing changes.
 */
export function restoreCompaction(view: LedgerView, id: string | null): RestoreResult {
  const { ledger, runtime } = view;
  const active = ledger.active();
  const target = id === null ? active.at(-1) : active.find((e) => e.id === id);
  if (!target) {
    if (id === null) return { status: "nothing_to_undo" };
    const by = ledger.entries.find((e) => e.kind === "restore" && e.compactions.includes(id));
    if (by) return { status: "already_restored", id, by: by.id };
    return { status: "unknown_id", id, known: ledger.compactions().map((e) => e.id) };
  }
  const before = view.messages;
  const unfolded = unfoldCompaction(before, target, active);
  const after = placePins(unfolded.messages, pinsBlock(view.pins)).messages;
  const problem = checkConversation(after, { allowTrailingInFlightCall: false })[0];
  if (problem) return { status: "invalid", reason: `the restored list would be invalid at message ${problem.index}: ${problem.message}` };
  const tokensNeeded = runtime.counter.countMessages(after);
  if (view.contextLength > 0 && tokensNeeded > view.inputBudget) {
    const { compactions, back } = unfolded;
    return { status: "does_not_fit", compactions, messagesBack: back, tokensNeeded, budget: view.inputBudget, overBy: tokensNeeded - view.inputBudget };
  }
  return commitRestore(view, before, after, unfolded.compactions, unfolded.back, tokensNeeded);
}

/** Put `after` in place of `before`, record the restore in the ledger and announce it. */
export function commitRestore(
  view: LedgerView,
  before: readonly Message[],
  after: Message[],
  compactions: string[],
  messagesBack: number,
  tokensNeeded: number,
): RestoreResult {
  const tokensBefore = view.runtime.counter.countMessages(before);
  view.setMessages(after);
  const entry = view.ledger.recordRestore({
    sessionId: view.id,
    compactions,
    messagesBack,
    tokensBefore,
    tokensAfter: tokensNeeded,
    messagesBefore: before.length,
    messagesAfter: after.length,
    before,
    after,
    request: view.request,
  });
  view.runtime.bus.emit({ type: "compaction.restored", sessionId: view.id, ledgerId: entry.id, compactions: entry.compactions, messagesBack, tokensBefore, tokensAfter: tokensNeeded });
  return { status: "restored", entry };
}

/** A pin with what it costs in every request. */
export interface PinInfo extends Pin {
  tokens: number;
}

export type PinResult =
  | { status: "pinned"; pin: PinInfo; blockTokens: number; cap: number | null }
  | { status: "refused"; reason: string; blockTokens: number; cap: number; overBy: number }
  | { status: "invalid"; reason: string };

/** What a pin refers to: its text, or a message of the live list by index (its text is pinned). */
export type PinInput = string | { index: number };

/** The cap on the pins block's tokens: `host.pins.max_share` of the window; null with no known window. */
export function pinsCap(view: LedgerView): number | null {
  return view.contextLength > 0 ? Math.floor(view.contextLength * view.runtime.config.pins.maxShare) : null;
}

/**
 * Why a switch to a `contextLength`-token window must be refused: the pins
 * block over that window's cap (pins are a promise until `/unpin`, so they
 * are never dropped; the cap is kept by refusing the switch). Null: it fits.
 */
export function pinsOverNewCap(view: LedgerView, model: string, contextLength: number): PinsOverCapError | null {
  if (contextLength <= 0 || view.pins.length === 0) return null;
  const cap = Math.floor(contextLength * view.runtime.config.pins.maxShare);
  const tokens = blockTokens(view, view.pins);
  return tokens > cap ? new PinsOverCapError(model, contextLength, tokens, cap, tokens - cap, listPins(view)) : null;
}

export function listPins(view: LedgerView): PinInfo[] {
  return view.pins.map((p) => ({ ...p, tokens: view.runtime.counter.countText(`<pin id="${p.id}">\n${p.text}\n</pin>`) }));
}

export function blockTokens(view: LedgerView, pins: readonly Pin[]): number {
  const block = pinsBlock(pins);
  return block ? view.runtime.counter.countMessage(block) : 0;
}

export function addPin(view: LedgerView, input: PinInput): PinResult {
  const text = pinText(view, input);
  if (typeof text !== "string") return text;
  const number = Math.max(view.ledger.lastPinNumber(), ...view.pins.map((p) => Number(p.id.slice(1)) || 0)) + 1;
  const pin: Pin = { id: `p${number}`, text, at: new Date().toISOString(), ...(typeof input === "object" ? { ref: `@${input.index}` } : {}) };
  const pins = [...view.pins, pin];
  const tokens = blockTokens(view, pins);
  const cap = pinsCap(view);
  if (cap !== null && tokens > cap) {
    const share = Math.round(view.runtime.config.pins.maxShare * 100);
    const reason = `pins would take ~${tokens} tokens, over the cap of ${cap} (${share}% of the ${view.contextLength}-token window) by ${tokens - cap}; unpin something or raise host.pins.max_share`;
    return { status: "refused", reason, blockTokens: tokens, cap, overBy: tokens - cap };
  }
  applyPins(view, pins);
  view.ledger.recordPin({ kind: "pin", sessionId: view.id, pinId: pin.id, text, blockTokens: tokens });
  view.runtime.bus.emit({ type: "pins.changed", sessionId: view.id, change: "pin", pinId: pin.id, pins: pins.length, blockTokens: tokens });
  return { status: "pinned", pin: listPins(view).find((p) => p.id === pin.id)!, blockTokens: tokens, cap };
}

export type UnpinResult = { status: "unpinned"; pin: Pin } | { status: "unknown_id"; id: string; known: string[] };

export function removePin(view: LedgerView, id: string): UnpinResult {
  const pin = view.pins.find((p) => p.id === id);
  if (!pin) return { status: "unknown_id", id, known: view.pins.map((p) => p.id) };
  const pins = view.pins.filter((p) => p !== pin);
  applyPins(view, pins);
  const tokens = blockTokens(view, pins);
  view.ledger.recordPin({ kind: "unpin", sessionId: view.id, pinId: id, text: pin.text, blockTokens: tokens });
  view.runtime.bus.emit({ type: "pins.changed", sessionId: view.id, change: "unpin", pinId: id, pins: pins.length, blockTokens: tokens });
  return { status: "unpinned", pin };
}

function applyPins(view: LedgerView, pins: Pin[]): void {
  view.pins = pins;
  view.setMessages(placePins(view.messages, pinsBlock(pins)).messages);
}

function pinText(view: LedgerView, input: PinInput): string | { status: "invalid"; reason: string } {
  if (typeof input === "string") {
    return input.trim() ? input : { status: "invalid", reason: "pin: the text is empty" };
  }
  const m = Number.isInteger(input.index) ? view.messages[input.index] : undefined;
  if (!m) return { status: "invalid", reason: `pin: no message @${input.index} (the conversation has ${view.messages.length}, @0–@${view.messages.length - 1})` };
  const text = contentText(m.content);
  return text.trim() ? text : { status: "invalid", reason: `pin: message @${input.index} has no text to pin` };
}
