import { setTimeout as sleep } from "node:timers/promises";
import { describeError } from "@context-engine/core";
import type { ImportProgress, ImportSource, LcmStoreDriver } from "../store/types.js";
import { pauseFor } from "./index-drain.js";
import type { EngineParts } from "./parts.js";
import type { EngineSession } from "./session.js";

/**
 * One import slice: about SLICE_MS of encoding and at most SLICE_ROWS rows, so a hook that arrives meanwhile
 * waits about that long. On PostgreSQL a row's inserts and index updates take longer than its encoding, and
 * a hook waits for the slice's transaction: 32 rows kept the host's turns at p50 70 ms while the import ran
 * (128 rows: 132 ms; bench host-imported at 100k, load 7).
 */
const SLICE_MS = 8;
const SLICE_ROWS = { sqlite: 256, postgres: 32 } as const;

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
 * Stores a session's import backlog off the hook path, in slices of about SLICE_MS that start only when no
 * hook is in flight and within `drain_cpu_share` of one core, each under the session's lock (so an ingest
 * never sees half a slice), oldest first. When it is done the index drain and the backlog drain take over.
 */
export class ImportDrain {
  readonly #running = new Map<EngineSession, Promise<void>>();

  kick(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
    if (!importing(s) || !s.importing?.source || this.#running.has(s) || parts.isClosed()) return;
    const run = this.#run(parts, store, s)
      .catch((error: unknown) => {
        if (!parts.isClosed()) parts.logger.warn("lcm: background import stopped; the next hook of the session resumes it", { sessionId: s.sessionId, error: describeError(error) });
      })
      .finally(() => this.#running.delete(s));
    this.#running.set(s, run);
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
      if (!r || !r.carried || r.remaining === 0) {
        s.importing = s.importing && s.importing.abandoned > 0 ? { ...s.importing, remaining: 0, source: null } : null;
        if (r && !r.carried) parts.logger.warn("lcm: the import's list no longer shows its history; the next list that does resumes it", { sessionId: s.sessionId });
        if (!r || r.carried) this.#done(parts, store, s);
        return;
      }
      s.importing = { ...s.importing!, remaining: r.remaining };
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
