import { setTimeout as sleep } from "node:timers/promises";
import { describeError } from "@context-engine/core";
import type { Logger } from "@context-engine/core";
import type { ImportProgress, ImportSliceResult, ImportSource, LcmStoreDriver } from "../store/types.js";
import { pauseFor } from "./index-drain.js";
import type { EngineParts } from "./parts.js";
import type { EngineSession } from "./session.js";
import { atExit } from "./exit-finish.js";

/**
 * One import slice: about SLICE_MS of encoding and at most SLICE_ROWS rows, so a hook that arrives meanwhile
 * waits about that long. On PostgreSQL a row's inserts and index updates take longer than its encoding, and
 * a hook waits for the slice's transaction: 32 rows kept the host's turns at p50 70 ms while the import ran
 * (128 rows: 132 ms; bench host-imported at 100k, load 7).
 */
const SLICE_MS = 8;
const SLICE_ROWS = { sqlite: 256, postgres: 32 } as const;
/** Rows per transaction when an import is finished at a stop (no hook to wait for it). */
const FINISH_ROWS = 2048;
/**
 * A tool call during an import stores the rest first, so that a search is never missing the oldest messages,
 * when that takes about 2 s at most: 100k rows on SQLite (1.8 s measured at exit), 5,000 on PostgreSQL (the
 * background import stored 100k in 37 s there). Past it the tool answers from what is stored, with a note.
 */
const FINISH_FOR_TOOL_ROWS = { sqlite: 100_000, postgres: 5_000 } as const;

/** A session's import still storing its backlog: what is left, and the host list carrying it (null: none at hand yet). */
export interface SessionImport {
  remaining: number;
  source: ImportSource | null;
  /** Backlog messages given up (no list carried them when the history had to be whole). */
  abandoned: number;
}

/**
 * Note what an ingest said of the session's import: the list it was given carries the backlog (the first
 * ingest, or a restarted process's list showing the same history), so it is kept as the source; the
 * list is copied up to the tail's start, never walked.
 */
export function noteImport(s: EngineSession, progress: ImportProgress | null, abandoned: number, list: readonly unknown[], source: Omit<ImportSource, "messages">): void {
  if (abandoned > 0) s.importing = { remaining: 0, source: null, abandoned: (s.importing?.abandoned ?? 0) + abandoned };
  if (!progress || progress.remaining === 0) {
    if (s.importing) s.importing = s.importing.abandoned > 0 ? { ...s.importing, remaining: 0, source: null } : null;
    return;
  }
  const keep = s.importing?.source ?? (progress.carried ? { ...source, messages: list.slice() as ImportSource["messages"] } : null);
  s.importing = { remaining: progress.remaining, source: keep, abandoned: s.importing?.abandoned ?? 0 };
}

/** What a search says while the session's imported history is not all stored, or given up in part. */
export function importNote(s: EngineSession): string | null {
  const i = s.importing;
  if (!i) return null;
  if (i.remaining > 0) return `an imported history is still being stored: its ${i.remaining} oldest messages are not searchable yet (getStatus().lcm.session.import)`;
  return i.abandoned > 0 ? `${i.abandoned} messages of an imported history were never stored: no list that showed them was at hand` : null;
}

/** Whether the session still has backlog to store: compaction waits for it (its runs would skip the gap). */
export function importing(s: EngineSession): boolean {
  return (s.importing?.remaining ?? 0) > 0;
}

/**
 * A slice's result noted on the session: what is left, or the import's end (stored whole, no list at hand
 * carries it any more, or gone from the store). True when it has ended.
 */
function noteSlice(s: EngineSession, r: ImportSliceResult | null): boolean {
  if (r && r.carried && r.remaining > 0) {
    s.importing = { ...s.importing!, remaining: r.remaining };
    return false;
  }
  s.importing = s.importing && s.importing.abandoned > 0 ? { ...s.importing, remaining: 0, source: null } : null;
  return true;
}

/**
 * Stores a session's import backlog off the hook path, in slices of about SLICE_MS that start only when no
 * hook is in flight and within `drain_cpu_share` of one core, each under the session's lock (so an ingest
 * never sees half a slice), oldest first. When it is done the index drain and the backlog drain take over.
 */
export class ImportDrain {
  readonly #running = new Map<EngineSession, Promise<void>>();
  /**
   * Sessions whose import is finished at once if the process exits first (SQLite), each with the release of its
   * own exit finisher: one session's failure there (exit-finish.ts catches it) never keeps another's from running.
   */
  readonly #atExit = new Map<EngineSession, () => void>();

  kick(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
    if (!importing(s) || !s.importing?.source || this.#running.has(s) || parts.isClosed()) return;
    this.#finishAtExit(parts, store, s);
    const run = this.#run(parts, store, s)
      .catch((error: unknown) => {
        if (!parts.isClosed()) parts.logger.warn("lcm: background import stopped; the next hook of the session resumes it", { sessionId: s.sessionId, error: describeError(error) });
      })
      .finally(() => {
        this.#running.delete(s);
        if (!importing(s) || parts.isClosed()) this.#forgetAtExit(s);
      });
    this.#running.set(s, run);
  }

  /**
   * A process that exits without closing the engine (`process.exit()`) still stores the backlog it holds:
   * SQLite's driver is synchronous, so an `exit` listener can (exit-finish.ts). PostgreSQL's cannot: there the
   * next list showing the history resumes it.
   */
  #finishAtExit(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
    if (parts.handle.description.kind !== "sqlite" || this.#atExit.has(s)) return;
    this.#atExit.set(s, atExit(() => this.#finishSync(store, s)));
  }

  #forgetAtExit(s: EngineSession): void {
    this.#atExit.get(s)?.();
    this.#atExit.delete(s);
  }

  /** `finish` without awaiting: at exit nothing else runs, and SQLite answers each slice synchronously. */
  #finishSync(store: LcmStoreDriver, s: EngineSession): void {
    for (;;) {
      const source = s.importing?.source;
      if (!source || !importing(s)) return;
      const r = store.importSlice(s.conversationId, source, { maxRows: FINISH_ROWS });
      if (r instanceof Promise) return;
      if (noteSlice(s, r)) return;
    }
  }

  /**
   * Store what is left of the session's backlog now, slice after slice without pauses (a stop on purpose:
   * the session's end, the engine's close), so that a process stopped that way gives nothing up. Slices
   * share the session's lock with the background run, which finds nothing left afterwards.
   */
  async finish(store: LcmStoreDriver, s: EngineSession): Promise<void> {
    for (;;) {
      const source = s.importing?.source;
      if (!source || !importing(s)) return;
      const r = await s.locked(async () => store.importSlice(s.conversationId, source, { maxRows: FINISH_ROWS }));
      if (noteSlice(s, r)) return;
    }
  }

  /** Before a tool call (outside the session's lock): `finish` when what is left is quick to store. */
  async finishForTool(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): Promise<void> {
    if (!importing(s) || s.importing!.remaining > FINISH_FOR_TOOL_ROWS[parts.handle.description.kind]) return;
    await this.finish(store, s);
    // The background run, if waiting, finds nothing left and returns: what follows an import starts here.
    if (!importing(s)) this.#done(parts, store, s);
  }

  /** `finish` for every session (the engine's close); a failure is logged, the next list showing the history resumes it. */
  async finishAll(store: LcmStoreDriver, sessions: Iterable<EngineSession>, logger: Logger): Promise<void> {
    for (const s of sessions) {
      try {
        await this.finish(store, s);
      } catch (error) {
        logger.warn("lcm: an import could not be finished at close; a list showing its history resumes it", { sessionId: s.sessionId, error: describeError(error) });
      }
      // Closed: nothing is left for an exit listener to do (the store is given back).
      this.#forgetAtExit(s);
    }
  }

  /** Resolves when the session's import (every import, without a session) has stopped. */
  async idle(s?: EngineSession): Promise<void> {
    if (s) await this.#running.get(s);
    else await Promise.allSettled([...this.#running.values()]);
  }

  async #run(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): Promise<void> {
    const { clock } = parts;
    for (;;) {
      await clock.quiet();
      const source = s.importing?.source;
      if (parts.isClosed() || !source || !importing(s)) return;
      const before = clock.backgroundCpuMs;
      const r = await clock.background(() => s.locked(async () => store.importSlice(s.conversationId, source, { maxMs: SLICE_MS, maxRows: SLICE_ROWS[parts.handle.description.kind] })));
      if (noteSlice(s, r)) {
        if (r && !r.carried) parts.logger.warn("lcm: the import's list no longer shows its history; the next list that does resumes it", { sessionId: s.sessionId });
        if (!r || r.carried) this.#done(parts, store, s);
        return;
      }
      const pause = pauseFor(clock.backgroundCpuMs - before, parts.config.drain_cpu_share);
      await sleep(Math.max(1, pause));
    }
  }

  /** The whole history is stored: index it, and summarise it if it is over the threshold. */
  #done(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
    parts.indexing.kick(store);
    parts.embeddings?.kick(store);
    parts.drain.check(parts, store, s);
  }
}
