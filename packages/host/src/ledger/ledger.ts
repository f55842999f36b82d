import type { Logger, Message, SecretRedactor } from "@context-engine/core";
import type { CompactionTrigger } from "../events.js";
import { cloneMessage } from "../clone.js";
import { alignLists, formHash, PINS_KEY } from "./digest.js";
import { LedgerFile } from "./ledger-file.js";
import { listForms } from "./list-forms.js";
import type { Pin } from "./pins-block.js";
import { prefixImpact, type RequestShape } from "./prefix-impact.js";
import { ledgerRedactor, redactLedgerEntry } from "./redact-entry.js";
import type { LedgerCompaction, LedgerEntry, LedgerPinChange, LedgerRestore } from "./types.js";

export interface CompactionFacts {
  sessionId: string;
  engine: string;
  trigger: CompactionTrigger;
  focusTopic: string | null;
  durationMs: number;
  tokensBefore: number;
  tokensAfter: number;
  before: readonly Message[];
  after: readonly Message[];
  /** The request around the messages (model, tools), for the cache figure; absent: the message list alone. */
  request?: RequestShape;
}

/**
 * One session's compaction ledger: every committed compaction, restore and
 * pin change, in order, kept in memory and (when the session has a file)
 * appended to `<dir>/<session id>.ledger.jsonl` as it happens, with secrets
 * redacted (`redactLedgerEntry`; memory keeps the exact entry). A write that
 * fails is logged; the session goes on.
 */
export class SessionLedger {
  #entries: LedgerEntry[] = [];
  #file: LedgerFile | null;
  readonly #logger: Logger;
  readonly #redactor: SecretRedactor;

  constructor(file: string | null, logger: Logger, redactor: SecretRedactor = ledgerRedactor()) {
    this.#logger = logger;
    this.#redactor = redactor;
    this.#file = null;
    this.reopen(file);
  }

  get entries(): readonly LedgerEntry[] {
    return this.#entries;
  }

  /** Start over (a reset session is another conversation), with its own file. */
  reopen(file: string | null): void {
    this.#file = file ? new LedgerFile(file) : null;
    try {
      this.#entries = this.#file ? this.#file.load() : [];
    } catch (error) {
      // A damaged ledger never stops the session: it is left as it is (nothing appended to it) and this one is kept in memory.
      this.#logger.warn(`the compaction ledger cannot be read; this session keeps a new one in memory: ${(error as Error).message}`, { file });
      this.#file = null;
      this.#entries = [];
    }
  }

  compactions(): LedgerCompaction[] {
    return this.#entries.filter((e): e is LedgerCompaction => e.kind === "compaction");
  }

  /** Compactions not undone by a restore, oldest first. */
  active(): LedgerCompaction[] {
    const undone = new Set(this.#entries.flatMap((e) => (e.kind === "restore" ? e.compactions : [])));
    return this.compactions().filter((e) => !undone.has(e.id));
  }

  /** The pins as the ledger's pin and unpin entries leave them (a resumed session's pins). */
  pins(): Pin[] {
    const pins = new Map<string, Pin>();
    for (const e of this.#entries) {
      if (e.kind === "pin") pins.set(e.pinId, { id: e.pinId, text: e.text, at: e.at });
      else if (e.kind === "unpin") pins.delete(e.pinId);
    }
    return [...pins.values()];
  }

  recordCompaction(f: CompactionFacts): LedgerCompaction {
    // Each message is put in canonical form once, for its digest, its bytes in the prefix figure and the alignment
    // alike (a first turn may hand over 100k). Only forms the other list also has can be matched, so only those are kept.
    const after = listForms(f.after);
    const formsAfter = new Set(after.keys);
    // Looking a form up in a Set hashes all of it (at 100k, tens of MB; lengths ruled out too few, as a few hundred kept
    // messages cover most lengths). The SHA-256 already taken rules a form out exactly: equal forms have equal hashes.
    const hashesAfter = new Set(after.digests.map((digest, i) => (digest === PINS_KEY && typeof after.keys[i] === "string" ? formHash(after.keys[i]) : digest)));
    const before = listForms(f.before, (form, hash) => (hash === undefined || hashesAfter.has(hash)) && formsAfter.has(form));
    const aligned = alignLists(f.before, f.after, { before: before.keys, after: after.keys });
    // Messages are JSON-like data: the plain walk copies them a few times faster than structuredClone (anything else still goes through it).
    const removed = aligned.removed.map((index) => ({ index, message: cloneMessage(f.before[index]!) }));
    const inserted = aligned.inserted.map((index) => ({ index, message: cloneMessage(f.after[index]!) }));
    const entry: LedgerCompaction = {
      kind: "compaction",
      id: `c${this.#count("compaction") + 1}`,
      sessionId: f.sessionId,
      engine: f.engine,
      trigger: f.trigger,
      focusTopic: f.focusTopic,
      at: new Date().toISOString(),
      durationMs: f.durationMs,
      tokensBefore: f.tokensBefore,
      tokensAfter: f.tokensAfter,
      messagesBefore: f.before.length,
      messagesAfter: f.after.length,
      removed,
      inserted,
      before: before.digests,
      after: after.digests,
      cache: prefixImpact(f.before, f.after, f.request, { before, after }),
    };
    return this.#add(entry);
  }

  recordRestore(r: Omit<LedgerRestore, "kind" | "id" | "at" | "cache"> & { before: readonly Message[]; after: readonly Message[]; request?: RequestShape }): LedgerRestore {
    const { before, after, request, ...facts } = r;
    const entry: LedgerRestore = { kind: "restore", id: `r${this.#count("restore") + 1}`, at: new Date().toISOString(), ...facts, cache: prefixImpact(before, after, request) };
    return this.#add(entry);
  }

  recordPin(change: Omit<LedgerPinChange, "id" | "at">): LedgerPinChange {
    const count = this.#entries.filter((e) => e.kind === "pin" || e.kind === "unpin").length;
    return this.#add({ ...change, id: `e${count + 1}`, at: new Date().toISOString() });
  }

  /** The largest pin number used so far (pin ids are never reused). */
  lastPinNumber(): number {
    return Math.max(0, ...this.#entries.flatMap((e) => (e.kind === "pin" ? [Number(e.pinId.slice(1)) || 0] : [])));
  }

  #count(kind: LedgerEntry["kind"]): number {
    return this.#entries.filter((e) => e.kind === kind).length;
  }

  #add<T extends LedgerEntry>(entry: T): T {
    this.#entries.push(entry);
    try {
      this.#file?.append(redactLedgerEntry(entry, this.#redactor));
    } catch (error) {
      this.#logger.warn("the compaction ledger could not be written; it is kept in memory", { file: this.#file?.file, error: (error as Error).message });
    }
    return entry;
  }
}
