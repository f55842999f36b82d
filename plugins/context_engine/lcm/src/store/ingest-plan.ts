import type { EncodedMessage } from "./codec.js";
import { backlogSplit, countReal } from "./import-plan.js";
import type { IngestInputs } from "./ingest-inputs.js";
import { isWeak, reconcile } from "./reconcile-list.js";
import type { IngestOptions, IngestResult, WriterPosition } from "./types.js";

/**
 * The dialect-free half of `ingest`: which inputs are new. In order of cost:
 *
 * 1. A turn key already stored: the turn's inputs are kept already (a retry, a
 *    re-delivery after a crash or in another process). Message keys likewise.
 * 2. The writer's position holds (the input it ended on still has the same
 *    fingerprint): everything after it is new, nothing before it is read.
 * 3. Otherwise the whole list is reconciled with the stored history
 *    (`reconcile.ts`): what is not provably stored is new, never skipped.
 *
 * The plan is a generator: it yields what it must read of the store and
 * gets the answer back, so the SQLite driver answers inside its synchronous
 * transaction and the PostgreSQL driver with queries on its transaction client.
 */

/** One stored message as the plan sees it. */
export interface StoredRef {
  id: number;
  seq: number;
  /** An identity hash (exact, or loose when the plan asked for loose ones), lower-case hex. */
  hash: string;
}

export type IngestNeed =
  /** Answer: Map from each known key to its message id (null for a turn key). */
  | { kind: "keys"; keys: string[] }
  /** Answer: WriterPosition[] recorded for the conversation by earlier ingests (any process), newest first. */
  | { kind: "positions"; limit: number }
  /** Answer: StoredRef[] of the stored messages whose exact hash is in `hashes`, oldest first. */
  | { kind: "hashes"; hashes: ReadonlySet<string> }
  /** Answer: StoredRef[] with loose hashes of stored messages with afterSeq < seq < beforeSeq, oldest first, at most `limit`. */
  | { kind: "loose"; afterSeq: number; beforeSeq: number; limit: number }
  /** Answer: the StoredRef (exact hash, as stored: nothing decoded) of the message at `seq`, or null. */
  | { kind: "atSeq"; seq: number }
  /**
   * An import of this conversation is still storing its backlog: finish it before the list is compared with the
   * history. Answer: null when it is finished, else `{ tailSeq }`, the seq of the tail's first message (the
   * import is left to the process at work on it).
   */
  | { kind: "complete-import" };

export type IngestPlanner = Generator<IngestNeed, IngestPlan, unknown>;

export interface IngestPlan {
  alignment: IngestResult["alignment"];
  alreadyStored: number;
  /** Stored ids of inputs known to be stored, by input index (sparse); the driver's result adds the appended ones. */
  ids: Map<number, number>;
  /** The inputs to store, in order, encoded. */
  append: Array<{ index: number; encoded: EncodedMessage }>;
  synthetic: number;
  rejected: Array<{ index: number; reason: string }>;
  /** Keys to record once written: the turn key (if new) and the message keys of appended inputs. */
  newTurnKey: string | null;
  newMessageKeys: Map<number, string>;
  duplicateTurn: boolean;
  /** Inputs appended although the list placed them before messages already stored (a host list that disagrees). */
  disagreed: number;
  /** Where this writer stands after the ingest (its last input). */
  position: WriterPosition | null;
  /** The list's oldest inputs [0, anchorIndex) left to a background import: `reserved` seqs before the appended tail. */
  deferred: { reserved: number; anchorIndex: number; fingerprint: string } | null;
  /** The position is the newest one the store records already (a list with nothing new): no need to write it again. */
  positionRecorded?: boolean;
}

/** Writer positions kept in the store per conversation (a few writers, a few list shapes each). */
export const RECORDED_POSITIONS = 8;

/** Turn keys and message keys share one table per conversation. */
export const turnKey = (key: string): string => `t:${key}`;
export const messageKey = (key: string): string => `m:${key}`;

export function* planIngest(inputs: IngestInputs, options: IngestOptions, storedCount: number, importPending = false): IngestPlanner {
  const n = inputs.length;
  const ids = new Map<number, number>();
  const keys = yield* readKeys(options, n, storedCount);
  let alignment: IngestResult["alignment"];
  let candidates: number[];
  let alreadyStored = 0;
  let disagreed = 0;
  /** Reconciling proved the list's end is this writer's frontier: only a tail was new, a telling match (or none at all), not behind. */
  let cleanEnd = false;
  let deferred: IngestPlan["deferred"] = null;
  // Positions this writer holds in memory, and those recorded in the store (a restart, another process's
  // identical list): any that still holds proves the list up to it stored.
  const recorded = options.mode === "append" || storedCount === 0 ? [] : ((yield { kind: "positions", limit: RECORDED_POSITIONS }) as WriterPosition[]);
  // The store's record comes first: it holds this writer's positions too, in the order they happened, and those of
  // other processes that sent the same list since.
  // The engine's own output and a plain append look for no position (each fingerprint hashes a message).
  const lookup = options.mode === "stored" || options.mode === "append" ? { held: null, behind: false } : null;
  const { held: pos, behind } = lookup ?? heldPosition(inputs, [...recorded, ...(options.positions ?? [])]);
  if (options.mode === "append") {
    alignment = "append";
    candidates = inputs.encodeRange(0);
  } else if (options.mode === "stored") {
    // The engine's own output (assembled from the store): nothing to add. Its end is where this writer stands
    // only while it ends with the newest stored message: after another writer's, what follows is not all new.
    alignment = "stored";
    candidates = [];
    alreadyStored = n;
    cleanEnd = yield* endsWithNewestStored(inputs, storedCount);
  } else if (storedCount === 0) {
    alignment = "empty-store";
    // A long history handed over at once: the tail now, the backlog in the background (import-plan.ts).
    const split = backlogSplit(inputs, options.deferBacklog);
    const reserved = split > 0 ? countReal(inputs, 0, split) : 0;
    if (reserved > 0) deferred = { reserved, anchorIndex: split, fingerprint: inputs.positionFingerprint(split) };
    candidates = inputs.encodeRange(reserved > 0 ? split : 0);
    // A tail with nothing to store would leave the reservation without an anchor: store everything now.
    if (deferred && candidates.length === 0) {
      deferred = null;
      candidates = inputs.encodeRange(0);
    }
  } else if (pos) {
    alignment = "position";
    candidates = inputs.encodeRange(pos.index + 1);
    // Everything up to the position is stored (not looked at one by one).
    alreadyStored = pos.index + 1;
    // What follows it may be stored since by this same host through its named turn (OpenClaw's commit after
    // the assemble whose list set the position): those messages are not new.
    // Only when something was stored since the position was set (not on a lone writer's turn: no lookup then).
    const mark = (options.positions ?? []).find((p) => p.index === pos.index && p.fingerprint === pos.fingerprint && Number.isInteger(p.storedCount));
    if (mark && mark.storedCount! < storedCount) {
      const since = yield* storedSincePosition(inputs, pos.index, candidates, mark.storedCount!, ids);
      candidates = candidates.slice(since);
      alreadyStored += since;
    }
  } else {
    // Inside a keyed turn everything is new by the host's word: short matches there need proof; before it they stand.
    const keyFrom = options.key ? Math.max(0, Math.min(options.keyFrom ?? 0, n)) : null;
    // The stored history must be whole before a list is compared with it. When it cannot be made whole here (no
    // list at hand carries the backlog), what the list shows before the tail is the backlog's or older: held
    // back, never stored a second time beside the import's copy; a later list decides once the import is done.
    const left = importPending ? ((yield { kind: "complete-import" }) as { tailSeq: number } | null) : null;
    const r = yield* reconcile(inputs, storedCount, ids, keyFrom, options.seenIds, left?.tailSeq);
    alignment = r.matched > 0 ? "reconciled" : "no-overlap";
    candidates = r.fresh;
    alreadyStored = r.matched;
    disagreed = r.disagreed;
    // (Nothing new: the list may be a stale copy; its end is no position either.)
    // A list shorter than where this writer already was is behind it (a stale or rewritten copy) either way.
    // A list with messages held back is no position: the next one must be compared again.
    cleanEnd = (r.anchored || r.matched === 0) && r.fresh.length > 0 && !behind && r.held === 0;
  }
  const keyFrom = Math.max(0, Math.min(options.keyFrom ?? 0, n));
  const duplicateTurn = keys.turn !== null && keys.known.has(keys.turn);
  const append: IngestPlan["append"] = [];
  const newMessageKeys = new Map<number, string>();
  for (const i of candidates) {
    if (duplicateTurn && i >= keyFrom) continue;
    const mk = keys.byIndex.get(i);
    if (mk !== undefined && keys.known.has(mk)) {
      const id = keys.known.get(mk);
      if (id != null) ids.set(i, id);
      alreadyStored++;
      continue;
    }
    if (mk !== undefined) newMessageKeys.set(i, mk);
    append.push({ index: i, encoded: inputs.encoded(i)! });
  }
  const position =
    n > 0 && (alignment === "position" || alignment === "append" || alignment === "empty-store" || cleanEnd)
      ? { index: n - 1, fingerprint: inputs.positionFingerprint(n - 1), storedCount: storedCount + (deferred?.reserved ?? 0) + append.length }
      : null;
  const newestRecorded = recorded[0];
  return {
    alignment,
    alreadyStored,
    ids,
    append,
    synthetic: inputs.synthetic,
    rejected: inputs.rejected.sort((a, b) => a.index - b.index),
    newTurnKey: keys.turn !== null && !duplicateTurn ? keys.turn : null,
    newMessageKeys,
    duplicateTurn,
    disagreed,
    deferred,
    // A reconciled list may be behind the writer's own (a stale copy) or rewritten: its end is a position
    // only where a telling message matched and nothing new came before a match; otherwise the messages
    // after it would later be taken for new ones.
    position,
    positionRecorded: position !== null && newestRecorded?.index === position.index && newestRecorded.fingerprint === position.fingerprint,
  };
}

/**
 * How many of the inputs after a held position are the very messages stored since that position was set
 * (`storedCount`), right after the position's own message, in order, with a telling one among them: the same
 * host's turn stored through another path (a named turn). Messages stored before the position are never
 * taken, so a host that repeats itself is stored again; short messages alone prove nothing. Ids go into `ids`.
 */
function* storedSincePosition(inputs: IngestInputs, at: number, candidates: readonly number[], storedCount: number, ids: Map<number, number>): Generator<IngestNeed, number, unknown> {
  const anchor = inputs.encoded(at);
  if (!anchor || candidates.length === 0) return 0;
  const hashes = candidates.map((i) => inputs.encoded(i)!.hashHex);
  const rows = (yield { kind: "hashes", hashes: new Set([anchor.hashHex, ...hashes]) }) as StoredRef[];
  const bySeq = new Map(rows.map((r) => [r.seq, r]));
  // The position's message is the newest stored when it was set, or earlier; what follows it must be newer still.
  const start = rows.filter((r) => r.hash === anchor.hashHex && r.seq < storedCount).at(-1);
  if (!start) return 0;
  let k = 0;
  while (k < candidates.length && start.seq + 1 + k >= storedCount && bySeq.get(start.seq + 1 + k)?.hash === hashes[k]) k++;
  if (k === 0 || candidates.slice(0, k).every((i) => isWeak(inputs.encoded(i)!))) return 0;
  for (let j = 0; j < k; j++) ids.set(candidates[j]!, bySeq.get(start.seq + 1 + j)!.id);
  return k;
}

/** Whether the list's last stored kind of message is the conversation's newest stored message. */
function* endsWithNewestStored(inputs: IngestInputs, storedCount: number): Generator<IngestNeed, boolean, unknown> {
  if (storedCount === 0) return false;
  // The stored exact hash first (a column: nothing decoded or redacted again), against the identity hash the writer
  // memo holds for the list's last message (the host's own copy, fingerprinted by the ingest before).
  let real = inputs.length - 1;
  while (real >= 0 && !inputs.isReal(real)) real--;
  if (real < 0) return false;
  const newest = (yield { kind: "atSeq", seq: storedCount - 1 }) as StoredRef | null;
  if (!newest) return false;
  if (newest.hash === inputs.fingerprint(real)) return true;
  let last = real;
  while (last >= 0 && !inputs.encoded(last)) last--;
  if (last < 0) return false;
  const encoded = inputs.encoded(last)!;
  const rows = (yield { kind: "loose", afterSeq: storedCount - 2, beforeSeq: storedCount, limit: 1 }) as StoredRef[];
  return rows.length === 1 && rows[0]!.hash === encoded.looseHex;
}

/**
 * The position this list continues from, or null. Positions of one list
 * family (lists that start alike: one writer's) are newest first; only the
 * newest counts. Where it holds, everything after it is new. A list shorter
 * than it is behind the writer (a stale copy), and one that no longer matches
 * it was rewritten: both are reconciled, since an older position that still
 * holds would take what the writer stored since for new.
 */
function heldPosition(inputs: IngestInputs, positions: readonly WriterPosition[]): { held: WriterPosition | null; behind: boolean } {
  if (inputs.length === 0) return { held: null, behind: false };
  const family = inputs.fingerprint(0);
  const newest = positions.find((p) => p.fingerprint.split(":").at(-1) === family && Number.isInteger(p.index) && p.index >= 0);
  if (!newest) return { held: null, behind: false };
  if (newest.index >= inputs.length) return { held: null, behind: true };
  return { held: inputs.positionFingerprint(newest.index) === newest.fingerprint ? newest : null, behind: false };
}

interface Keys {
  turn: string | null;
  byIndex: Map<number, string>;
  known: Map<string, number | null>;
}

function* readKeys(options: IngestOptions, n: number, storedCount: number): Generator<IngestNeed, Keys, unknown> {
  const turn = options.key ? turnKey(options.key) : null;
  const byIndex = new Map<number, string>();
  const mk = options.messageKeys;
  const from = Number.isSafeInteger(options.messageKeysFrom) && options.messageKeysFrom! > 0 ? options.messageKeysFrom! : 0;
  if (mk) {
    for (let j = 0; j < mk.length && from + j < n; j++) {
      const id = mk[j];
      if (typeof id === "string" && id) byIndex.set(from + j, messageKey(id));
    }
  }
  const asked = [...(turn ? [turn] : []), ...byIndex.values()];
  const known = asked.length && storedCount > 0 ? ((yield { kind: "keys", keys: asked }) as Map<string, number | null>) : new Map<string, number | null>();
  return { turn, byIndex, known };
}

/** The result of an ingest once the driver wrote the plan: `newIds[j]` is the id of `plan.append[j]`. */
export function ingestResult(
  conversationId: number,
  plan: IngestPlan,
  newIds: readonly number[],
  firstSeq: number | null,
  inputCount: number,
  imports: Pick<IngestResult, "pendingImport" | "importAbandoned"> = { pendingImport: null, importAbandoned: 0 },
): IngestResult {
  const redactions: Record<string, number> = {};
  plan.append.forEach(({ index, encoded }, j) => {
    plan.ids.set(index, newIds[j]!);
    if (encoded.redacted) for (const [k, v] of Object.entries(encoded.redactions)) redactions[k] = (redactions[k] ?? 0) + v;
  });
  const appended = newIds.length;
  const known = plan.ids;
  let ids: Array<number | null> | null = null;
  return {
    conversationId,
    appended,
    appendedIds: [...newIds],
    alreadyStored: plan.alreadyStored,
    synthetic: plan.synthetic,
    // One entry per input is O(transcript): built only when asked for; the turn path reads `knownIds`.
    get ids() {
      if (ids === null) {
        ids = new Array<number | null>(inputCount).fill(null);
        for (const [i, id] of known) ids[i] = id;
      }
      return ids;
    },
    knownIds: known,
    firstSeq: appended ? firstSeq : null,
    lastSeq: appended && firstSeq !== null ? firstSeq + appended - 1 : null,
    alignment: plan.alignment,
    rejected: plan.rejected,
    redactions,
    duplicateTurn: plan.duplicateTurn,
    disagreed: plan.disagreed,
    position: plan.position,
    ...imports,
  };
}

/** Run a plan whose reads are answered synchronously (SQLite, inside its transaction). */
export function runPlanSync(planner: IngestPlanner, answer: (need: IngestNeed) => unknown): IngestPlan {
  let step = planner.next();
  while (!step.done) step = planner.next(answer(step.value));
  return step.value;
}

/** Run a plan whose reads are answered by queries (PostgreSQL). */
export async function runPlan(planner: IngestPlanner, answer: (need: IngestNeed) => Promise<unknown>): Promise<IngestPlan> {
  let step = planner.next();
  while (!step.done) step = planner.next(await answer(step.value));
  return step.value;
}
