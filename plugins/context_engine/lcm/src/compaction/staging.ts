import type { LcmStoreDriver } from "../store/types.js";
import { runOf, summaryOf } from "./runner.js";
import type { PreparedStep, PreparedWork } from "./runner.js";

/** Stored ids of the summaries of prepared steps written ahead (rows never change, so a step is written once). */
const stagedIds = new WeakMap<PreparedStep, string>();

/**
 * Write the summaries of prepared steps to the store ahead of the compaction
 * trigger, off the frontier (`commitSummary` without a run to replace): the
 * row, its lineage and its search entry. The trigger's publish then finds the
 * row and only swaps it into the frontier, so the work the host waits for at
 * the threshold is the swap, not the writes. A step whose sources no longer
 * check out stops the staging there; publishing decides again anyway. A staged
 * summary that is never published (its run changed, the session ended) stays
 * a searchable summary of its own sources, as a superseded one does.
 * Returns how many summaries were written now.
 */
export async function stagePrepared(store: LcmStoreDriver, work: PreparedWork, signal?: AbortSignal): Promise<number> {
  const ids: Array<string | null> = [];
  let written = 0;
  for (const step of work.steps) {
    let id = stagedIds.get(step);
    if (id === undefined) {
      const run = runOf(step, ids);
      if (!run || signal?.aborted) break;
      const res = await store.commitSummary(summaryOf(work.conversationId, step, run));
      if (!res.ok) break;
      id = res.summary.id;
      stagedIds.set(step, id);
      written++;
    }
    ids.push(id);
  }
  return written;
}
