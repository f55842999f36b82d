import type { ShapeLoader } from "../compaction/planner.js";
import type { MessageShape } from "../compaction/units.js";
import type { Frontier, LcmStoreDriver } from "../store/types.js";

/** Above this many cached shapes, those no longer in the frontier are dropped. */
const MAX_SHAPES = 50_000;

/**
 * The message shapes the compaction planner reads (role, tokens, tool-call
 * ids). The planner is synchronous, so every shape it may ask for is loaded
 * before it runs: from the frontier read itself when the driver returns shapes
 * with it, otherwise in one batched read of what is not cached yet.
 */
export class ShapeBook {
  readonly #shapes = new Map<number, MessageShape>();

  /**
   * Make every message of `frontier` answerable by `loader`. A `partial`
   * frontier (only what was appended) never prunes: the rest is still live.
   */
  async ensure(store: LcmStoreDriver, frontier: Frontier, options: { partial?: boolean } = {}): Promise<void> {
    // Pruning walks the whole frontier: only when the book is well past both the bound and the frontier itself.
    if (!options.partial && this.#shapes.size > Math.max(MAX_SHAPES, frontier.items.length * 2)) this.#keepOnly(frontier);
    const missing: number[] = [];
    for (const item of frontier.items) {
      if (item.kind !== "message" || this.#shapes.has(item.messageId)) continue;
      if (item.shape) this.#remember({ id: item.messageId, tokens: item.tokens, ...item.shape });
      else missing.push(item.messageId);
    }
    if (!missing.length) return;
    for (const m of await store.getMessagesByIds(missing)) {
      this.#remember({ id: m.id, role: m.role, tokens: m.tokens, toolCallIds: m.toolCallIds, toolCallId: m.toolCallId });
    }
  }

  /** The planner's loader: shapes of the ids asked for that are known. */
  readonly loader: ShapeLoader = (ids) => {
    const out = new Map<number, MessageShape>();
    for (const id of ids) {
      const s = this.#shapes.get(id);
      if (s) out.set(id, s);
    }
    return out;
  };

  /** One known shape (assembly asks for messages it need not read). */
  get(id: number): MessageShape | undefined {
    return this.#shapes.get(id);
  }

  clear(): void {
    this.#shapes.clear();
  }

  #remember(shape: MessageShape): void {
    this.#shapes.set(shape.id, shape);
  }

  /** Rows never change once stored, so shapes are kept across passes; only those out of the frontier are dropped. */
  #keepOnly(frontier: Frontier): void {
    const live = new Set<number>();
    for (const item of frontier.items) if (item.kind === "message") live.add(item.messageId);
    for (const id of this.#shapes.keys()) if (!live.has(id)) this.#shapes.delete(id);
  }
}
