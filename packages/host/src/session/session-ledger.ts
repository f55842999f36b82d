import { join } from "node:path";
import type { Message, SecretRuleOptions } from "@context-engine/core";
import type { PinsOverCapError } from "../errors.js";
import type { RequestShape } from "../ledger/prefix-impact.js";
import { SessionLedger, type CompactionFacts } from "../ledger/ledger.js";
import { pinsBlock, placePins, type Pin } from "../ledger/pins-block.js";
import { ledgerRedactor } from "../ledger/redact-entry.js";
import type { LedgerCompaction, LedgerEntry } from "../ledger/types.js";
import type { HostRuntime } from "../runtime.js";
import { expandSummaryInPlace } from "./expand-restore.js";
import { addPin, listPins, pinsOverNewCap, removePin, restoreCompaction } from "./ledger-ops.js";
import type { LedgerView, PinInfo, PinInput, PinResult, RestoreResult, UnpinResult } from "./ledger-ops.js";

/** What the ledger wiring reads from its session (live) and how it hands back a new list. */
export interface LedgerSessionAccess {
  readonly id: string;
  readonly messages: Message[];
  readonly contextLength: number;
  readonly inputBudget: number;
  readonly request: RequestShape;
  readonly engineTools: string[];
  /** Publish a new live list (figures measured on the old one no longer apply). */
  setMessages(messages: Message[]): void;
}

/**
 * A session's compaction ledger and pins: where the ledger file is, the pins
 * block kept in the live list, undo/restore and pin changes. The session
 * serialises the calls (its queue); this module holds no queue of its own.
 */
export class SessionLedgerWiring {
  readonly #runtime: HostRuntime;
  readonly #session: LedgerSessionAccess;
  readonly #ledgerDir: string | undefined;
  readonly #ledger: SessionLedger;
  #pins: Pin[];

  /** `startPins`: texts pinned when the ledger holds no pins (a new session); `redaction`: the rules for the ledger file. */
  constructor(runtime: HostRuntime, session: LedgerSessionAccess, options: { ledgerDir?: string; startPins?: readonly string[]; redaction?: SecretRuleOptions }) {
    const startPins = options.startPins ?? [];
    this.#runtime = runtime;
    this.#session = session;
    this.#ledgerDir = options.ledgerDir;
    this.#ledger = new SessionLedger(this.#file(), runtime.logger, ledgerRedactor(options.redaction));
    this.#pins = this.#ledger.pins();
    if (this.#pins.length === 0) {
      const at = new Date().toISOString();
      this.#pins = startPins.filter((t) => t.trim()).map((text, i) => ({ id: `p${i + 1}`, text, at }));
    }
  }

  /** Another conversation (a reset): the new session id's own ledger, and its pins. */
  reopen(): void {
    this.#ledger.reopen(this.#file());
    this.#pins = this.#ledger.pins();
  }

  /** `messages` with the current pins block in place (a resumed history's older block replaced). */
  place(messages: Message[]): Message[] {
    return placePins(messages, pinsBlock(this.#pins)).messages;
  }

  /** The list with the host's pins block in place, whatever a pass or a trim did to it (logged when it had to). */
  withPins(messages: Message[]): Message[] {
    const placed = placePins(messages, pinsBlock(this.#pins));
    if (placed.changed && this.#pins.length > 0) this.#runtime.logger.warn("the engine changed or dropped the pins block; the host put it back", { sessionId: this.#session.id });
    return placed.messages;
  }

  recordCompaction(facts: CompactionFacts): LedgerCompaction {
    return this.#ledger.recordCompaction(facts);
  }

  compactions(): LedgerCompaction[] {
    return this.#ledger.compactions();
  }

  entries(): readonly LedgerEntry[] {
    return this.#ledger.entries;
  }

  undo(): RestoreResult {
    return restoreCompaction(this.#view(), null);
  }

  /** Undo compaction `id`; a summary id the ledger does not know is expanded in place through the engine's expand tool. */
  async restore(id: string): Promise<RestoreResult> {
    const view = this.#view();
    const fromLedger = restoreCompaction(view, id);
    if (fromLedger.status !== "unknown_id") return fromLedger;
    return (await expandSummaryInPlace(view, id, this.#session.engineTools)) ?? fromLedger;
  }

  pin(input: PinInput): PinResult {
    return addPin(this.#view(), input);
  }

  unpin(id: string): UnpinResult {
    return removePin(this.#view(), id);
  }

  pins(): PinInfo[] {
    return listPins(this.#view());
  }

  /** Why a switch to `model` with a `contextLength`-token window must be refused (pins over its cap); null when it may go. */
  overCapFor(model: string, contextLength: number): PinsOverCapError | null {
    return pinsOverNewCap(this.#view(), model, contextLength);
  }

  #file(): string | null {
    return this.#ledgerDir ? join(this.#ledgerDir, `${this.#session.id}.ledger.jsonl`) : null;
  }

  #view(): LedgerView {
    const self = this;
    const s = this.#session;
    return {
      id: s.id,
      runtime: self.#runtime,
      get messages() {
        return s.messages;
      },
      contextLength: s.contextLength,
      inputBudget: s.inputBudget,
      request: s.request,
      ledger: self.#ledger,
      get pins() {
        return self.#pins;
      },
      set pins(pins: Pin[]) {
        self.#pins = pins;
      },
      setMessages: (messages: Message[]) => s.setMessages(messages),
    };
  }
}
