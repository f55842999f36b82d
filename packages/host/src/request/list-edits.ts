/**
 * Edit generations of message lists. The sanitiser and token memos re-check
 * only the tail of a list they have seen, which is right while the list only
 * grows; whoever lets other code edit a list in place (an engine tool gets
 * the live conversation) marks it, and the memos start over.
 */
const generations = new WeakMap<readonly unknown[], number>();

export function listGeneration(list: readonly unknown[]): number {
  return generations.get(list) ?? 0;
}

/** The list may have been edited anywhere, not just appended to. */
export function markListEdited(list: readonly unknown[]): void {
  generations.set(list, listGeneration(list) + 1);
}
