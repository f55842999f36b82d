import type { ContextEngine } from "@context-engine/core";
import { describeError } from "./errors.js";
import { PluginTimeoutError, withTimeout } from "./timeout.js";

/**
 * An engine may report that it cannot run here (a store it cannot open, a
 * missing service, credentials) through an optional `isAvailable()`: false or
 * a throw (whose message says why, in plain words). "ok" when it has none.
 */
export async function availability(engine: ContextEngine, timeoutMs = 30_000): Promise<string> {
  const check = (engine as { isAvailable?: unknown }).isAvailable;
  if (typeof check !== "function") return "ok";
  try {
    const answer = await withTimeout(Promise.resolve().then(() => check.call(engine)), timeoutMs, "isAvailable()");
    return answer === false ? "unavailable: isAvailable() returned false" : "ok";
  } catch (error) {
    if (error instanceof PluginTimeoutError) return `unavailable: ${error.message}`;
    return `unavailable: ${describeError(error)}`;
  }
}

/** What an engine says about itself beyond its name (`describe()`: e.g. the store it uses), as text lines. */
export function engineDetails(engine: ContextEngine): Record<string, string> | null {
  const describe = (engine as { describe?: unknown }).describe;
  if (typeof describe !== "function") return null;
  try {
    const out = describe.call(engine) as unknown;
    if (!out || typeof out !== "object") return null;
    const details: Record<string, string> = {};
    for (const [k, v] of Object.entries(out as Record<string, unknown>)) if (typeof v === "string") details[k] = v;
    return Object.keys(details).length ? details : null;
  } catch {
    return null;
  }
}

/** Give back what a probe or a refused engine opened (a database handle, a pool). */
export async function disposeEngine(engine: ContextEngine): Promise<void> {
  const close = (engine as { close?: unknown }).close;
  if (typeof close !== "function") return;
  await withTimeout(Promise.resolve().then(() => close.call(engine)), 5_000, "close()").catch(() => undefined);
}
