import type { ContextEngine } from "@context-engine/core";

/** Public engine figures a compression pass may move (hosts read them for display and gates). */
export const ENGINE_FIGURES = [
  "compressionCount",
  "lastPromptTokens",
  "lastCompletionTokens",
  "lastTotalTokens",
  "awaitingRealUsageAfterCompression",
  "lastCompressionRoughTokens",
] as const;

export type EngineFigure = (typeof ENGINE_FIGURES)[number];

export interface FigureSnapshot {
  readonly at: number;
  readonly values: ReadonlyMap<EngineFigure, unknown>;
}

/**
 * The last legitimate value of each public engine figure. One engine serves
 * every session of a host, so when the host gives up on a pass of session A
 * it must undo what that pass wrote, but never what session B's usage, model
 * switch or committed compaction wrote in the meantime.
 */
export class EngineFigures {
  readonly #engine: ContextEngine;
  #clock = 0;
  readonly #legit = new Map<EngineFigure, { at: number; value: unknown }>();

  constructor(engine: ContextEngine) {
    this.#engine = engine;
  }

  snapshot(): FigureSnapshot {
    return { at: this.#clock, values: this.#read() };
  }

  /** The current values of `names` were written legitimately (a commit, a model switch). */
  confirm(names: readonly EngineFigure[] = ENGINE_FIGURES): void {
    const at = ++this.#clock;
    const values = this.#read();
    for (const name of names) this.#legit.set(name, { at, value: values.get(name) });
  }

  /** Run a hook through which figures change legitimately (usage, reset, …); what it changed is confirmed. */
  around<T>(fn: () => T): T {
    const before = this.#read();
    try {
      return fn();
    } finally {
      this.#confirmChanged(before);
    }
  }

  async aroundAsync<T>(fn: () => T | Promise<T>): Promise<T> {
    const before = this.#read();
    try {
      return await fn();
    } finally {
      this.#confirmChanged(before);
    }
  }

  /**
   * Undo an abandoned pass: each figure goes back to its last legitimate
   * value written after `snapshot`, else to its value at `snapshot`.
   */
  revert(snapshot: FigureSnapshot): void {
    const current = this.#read();
    for (const name of ENGINE_FIGURES) {
      const legit = this.#legit.get(name);
      const target = legit && legit.at > snapshot.at ? legit.value : snapshot.values.get(name);
      if (Object.is(current.get(name), target)) continue;
      try {
        (this.#engine as unknown as Record<string, unknown>)[name] = target;
      } catch {
        // A read-only figure on an exotic engine; nothing to restore.
      }
    }
  }

  #confirmChanged(before: ReadonlyMap<EngineFigure, unknown>): void {
    const after = this.#read();
    const changed = ENGINE_FIGURES.filter((name) => !Object.is(before.get(name), after.get(name)));
    if (changed.length > 0) this.confirm(changed);
  }

  #read(): Map<EngineFigure, unknown> {
    const values = new Map<EngineFigure, unknown>();
    for (const name of ENGINE_FIGURES) {
      try {
        values.set(name, (this.#engine as unknown as Record<string, unknown>)[name]);
      } catch {
        values.set(name, undefined);
      }
    }
    return values;
  }
}
