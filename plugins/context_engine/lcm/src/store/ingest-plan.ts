import type { Message } from "@context-engine/core";
import { alignTranscript } from "./align.js";
import type { EncodedMessage } from "./codec.js";
import type { ScreenedTexts } from "./screen-batch.js";
import type { IngestOptions, IngestResult } from "./types.js";

/**
 * The dialect-free half of `ingest`: which inputs are synthetic or rejected,
 * where the stored history ends inside the input list, which stored ids the
 * known inputs map to, and which inputs to append. Each driver reads what the
 * plan asks for (the stored tail, and only when the anchor fails the known
 * hashes) and writes the rows; both drivers thereby align the same way.
 */

/** One stored message as alignment sees it. */
export interface StoredRef {
  id: number;
  /** Identity hash, lower-case hex. */
  hash: string;
}

/** How the plan encodes inputs (the driver's redactor, and its caches). */
export interface IngestEncoder {
  /** Encode one input (redaction, identity hash); throws when it cannot be stored. */
  encode(message: Message, index: number, screened: ScreenedTexts | null): EncodedMessage;
  /** The identity hash of an input already seen, if the driver cached it. */
  cachedHash?(message: Message): string | undefined;
  /** Start a redaction pre-screen of the inputs about to be appended (bulk ingests), or null. */
  screenAhead?(indexes: readonly number[]): { forMessage(i: number): ScreenedTexts | null } | null;
}

/** What the driver read of the stored history. All synchronous: read ahead, or inside the write transaction. */
export interface StoredView {
  /** Messages stored in the conversation. */
  count: number;
  /** The k-th newest stored message (k = 0 is the last), for k < count. */
  tail(k: number): StoredRef | null;
  /**
   * Id of the newest stored message with this hash, or null when none. Absent
   * when the driver has not read them: a plan that needs them says which.
   */
  knownId?(hash: string): number | null;
}

export interface IngestPlan {
  alignment: IngestResult["alignment"];
  /** First input index considered new. */
  start: number;
  alreadyStored: number;
  /** Stored ids of the inputs matched to the stored history (null elsewhere); the driver fills in the appended ones. */
  ids: Array<number | null>;
  /** The inputs to store, in order, encoded. */
  append: Array<{ index: number; encoded: EncodedMessage }>;
  synthetic: number;
  rejected: Array<{ index: number; reason: string }>;
}

/** The plan cannot finish without the stored ids of these hashes (`StoredView.knownId`). */
export interface NeedKnownHashes {
  needKnownHashes: string[];
}

const UNSEEN = 0;
const SYNTHETIC = 1;
const REJECTED = 2;
const REAL = 3;

/**
 * The inputs of one ingest, classified and encoded lazily: alignment only
 * looks at the end of a long transcript, so a turn costs O(new messages), not
 * O(transcript). Kept across a second `planIngest` call (PostgreSQL's
 * fallback), so nothing is encoded twice.
 */
export class IngestInputs {
  readonly messages: readonly Message[];
  readonly #isSynthetic: IngestOptions["isSynthetic"];
  readonly #encoder: IngestEncoder;
  readonly #kind: Uint8Array;
  readonly #encoded: Array<EncodedMessage | null | undefined>;
  /** Hashes alignment asked for (a few hundred at the end of the list: a map, not an array of the whole transcript). */
  readonly #hashes = new Map<number, string>();
  readonly rejected: Array<{ index: number; reason: string }> = [];
  synthetic = 0;

  constructor(messages: readonly Message[], isSynthetic: IngestOptions["isSynthetic"], encoder: IngestEncoder) {
    this.messages = messages;
    this.#isSynthetic = isSynthetic;
    this.#encoder = encoder;
    this.#kind = new Uint8Array(messages.length);
    this.#encoded = new Array(messages.length);
  }

  get length(): number {
    return this.messages.length;
  }

  #classify(i: number): number {
    let k = this.#kind[i]!;
    if (k !== UNSEEN) return k;
    const m = this.messages[i];
    if (m === null || typeof m !== "object" || Array.isArray(m)) {
      k = REJECTED;
      this.rejected.push({ index: i, reason: "not a message object" });
    } else if (this.#isSynthetic?.(m, i)) {
      k = SYNTHETIC;
      this.synthetic++;
    } else k = REAL;
    this.#kind[i] = k;
    return k;
  }

  /** Whether input i is a message to store (not synthetic, not rejected so far). */
  isReal(i: number): boolean {
    return this.#classify(i) === REAL;
  }

  /** Input i encoded, or null when it is synthetic or cannot be stored (then it is listed in `rejected`). */
  encoded(i: number, screened: ScreenedTexts | null = null): EncodedMessage | null {
    const cached = this.#encoded[i];
    if (cached !== undefined) return cached;
    let e: EncodedMessage | null = null;
    if (this.#classify(i) === REAL) {
      try {
        e = this.#encoder.encode(this.messages[i]!, i, screened);
      } catch (error) {
        this.#kind[i] = REJECTED;
        this.rejected.push({ index: i, reason: (error as Error).message });
      }
    }
    this.#encoded[i] = e;
    return e;
  }

  /** Identity hash of input i (from the driver's cache when it has it), or null when it is not a message to store. */
  hash(i: number): string | null {
    const known = this.#hashes.get(i);
    if (known !== undefined) return known;
    if (this.#classify(i) !== REAL) return null;
    const h = this.#encoder.cachedHash?.(this.messages[i]!) ?? this.encoded(i)?.hashHex ?? null;
    if (h !== null) this.#hashes.set(i, h);
    return h;
  }

  isBoundaryRole(i: number): boolean {
    const role = (this.messages[i] as { role?: unknown } | null)?.role;
    return role === "system" || role === "developer";
  }

  /** Encode inputs start.. (with a pre-screen of the bulk when the driver offers one) and list those to store. */
  appendFrom(start: number): IngestPlan["append"] {
    const pending: number[] = [];
    for (let i = start; i < this.length; i++) if (this.#encoded[i] === undefined && this.#classify(i) === REAL) pending.push(i);
    const screen = pending.length ? (this.#encoder.screenAhead?.(pending) ?? null) : null;
    const out: IngestPlan["append"] = [];
    for (let i = start; i < this.length; i++) {
      const encoded = this.encoded(i, screen?.forMessage(i) ?? null);
      if (encoded) out.push({ index: i, encoded });
    }
    return out;
  }
}

/** How far back alignment maps ids (and checks the anchor's run). */
const MAP_LIMIT = 256;

/**
 * Decide an ingest. `mode: "append"` stores every input; `align` (default)
 * finds the anchor (see `alignTranscript`) and stores what follows it; with no
 * anchor, what follows the last input already stored by hash.
 */
export function planIngest(inputs: IngestInputs, stored: StoredView, mode: IngestOptions["mode"] = "align"): IngestPlan | NeedKnownHashes {
  const ids = new Array<number | null>(inputs.length).fill(null);
  let alignment: IngestResult["alignment"] = "append";
  let start = 0;
  let alreadyStored = 0;
  if (mode === "align" && stored.count === 0) alignment = "empty-store";
  else if (mode === "align") {
    let tailRead = 0;
    const tail = (k: number): StoredRef | null => {
      if (k >= stored.count) return null;
      tailRead = Math.max(tailRead, k + 1);
      return stored.tail(k);
    };
    const out = alignTranscript({
      length: inputs.length,
      storedCount: stored.count,
      inputHash: (i) => inputs.hash(i),
      storedHash: (k) => tail(k)?.hash ?? null,
      isBoundaryRole: (i) => inputs.isBoundaryRole(i),
      mapLimit: MAP_LIMIT,
    });
    if (out.anchor >= 0) {
      alignment = "anchored";
      start = out.anchor + 1;
      for (const [i, k] of out.matched) ids[i] = tail(k)?.id ?? null;
      alreadyStored = out.matched.size;
    } else {
      const found = lastKnown(inputs, stored, tailRead);
      if ("needKnownHashes" in found) return found;
      if (found.index >= 0) {
        ids[found.index] = found.id;
        alreadyStored = 1;
      }
      alignment = found.index >= 0 ? "hash-fallback" : "no-overlap";
      start = found.index + 1;
    }
  }
  const append = inputs.appendFrom(start);
  return { alignment, start, alreadyStored, ids, append, synthetic: inputs.synthetic, rejected: inputs.rejected.sort((a, b) => a.index - b.index) };
}

/** No anchor: the last input already stored (by hash, newest stored copy), looked up in the tail alignment read first. */
function lastKnown(inputs: IngestInputs, stored: StoredView, tailRead: number): { index: number; id: number | null } | NeedKnownHashes {
  const inTail = new Map<string, number>();
  for (let k = 0; k < tailRead; k++) {
    const t = stored.tail(k);
    if (t && !inTail.has(t.hash)) inTail.set(t.hash, t.id);
  }
  for (let i = inputs.length - 1; i >= 0; i--) {
    const h = inputs.hash(i);
    if (h === null) continue;
    const id = inTail.get(h) ?? (stored.knownId ? stored.knownId(h) : undefined);
    if (id === undefined) {
      // The driver has not read the older hashes: ask for those of every input from here back.
      const need = new Set<string>();
      for (let j = i; j >= 0; j--) {
        const hj = inputs.hash(j);
        if (hj !== null) need.add(hj);
      }
      return { needKnownHashes: [...need] };
    }
    if (id !== null) return { index: i, id };
  }
  return { index: -1, id: null };
}

/** The result of an ingest once the driver wrote the plan: `newIds[j]` is the id of `plan.append[j]`. */
export function ingestResult(conversationId: number, plan: IngestPlan, newIds: readonly number[], firstSeq: number | null): IngestResult {
  const redactions: Record<string, number> = {};
  plan.append.forEach(({ index, encoded }, j) => {
    plan.ids[index] = newIds[j]!;
    if (encoded.redacted) for (const [k, v] of Object.entries(encoded.redactions)) redactions[k] = (redactions[k] ?? 0) + v;
  });
  const appended = newIds.length;
  return {
    conversationId,
    appended,
    alreadyStored: plan.alreadyStored,
    synthetic: plan.synthetic,
    ids: plan.ids,
    firstSeq: appended ? firstSeq : null,
    lastSeq: appended && firstSeq !== null ? firstSeq + appended - 1 : null,
    alignment: plan.alignment,
    rejected: plan.rejected,
    redactions,
  };
}
