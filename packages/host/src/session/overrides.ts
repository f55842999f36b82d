import { ContextEngine } from "@context-engine/core";

const BASE = ContextEngine.prototype;

/**
 * Whether an engine replaces a base-class method (identity check, as core's
 * overridesHook does for the optional per-request hooks). Inherited defaults
 * are skipped without a call.
 */
export function overridesBase(engine: object, name: "shouldCompressPreflight" | "shouldCompressInfo" | "pruneToolResultsOnly"): boolean {
  const fn = (engine as Record<string, unknown>)[name];
  return typeof fn === "function" && fn !== BASE[name];
}
