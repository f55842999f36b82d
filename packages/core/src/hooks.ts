import type { Message } from "./messages.js";
import { isPlainObject } from "./messages.js";

/**
 * Marks the base class's no-op defaults. Registered with `Symbol.for` so the
 * identity check also works when an engine package brings its own copy of
 * `@context-engine/core`.
 */
export const DEFAULT_HOOK = Symbol.for("@context-engine/core/default-hook");

export type OptionalHookName = "selectContext" | "onTurnComplete";

/** Tag a function as an inherited no-op default. */
export function markDefaultHook<T extends (...args: never[]) => unknown>(fn: T): T {
  Object.defineProperty(fn, DEFAULT_HOOK, { value: true });
  return fn;
}

/**
 * Whether `engine` really implements `hook`, or merely inherits the base
 * class's no-op. Hosts use it to skip inherited defaults at zero cost.
 *
 * - a method defined on a subclass, or a function assigned on the instance,
 *   counts as an override;
 * - an engine that does not extend the base class but has the function
 *   (duck typing) counts as an override;
 * - a missing member, or anything that is not a function, does not.
 */
export function overridesHook(engine: unknown, hook: OptionalHookName): boolean {
  if (engine === null || engine === undefined || typeof engine !== "object") return false;
  const fn = (engine as Record<string, unknown>)[hook];
  if (typeof fn !== "function") return false;
  return (fn as { [DEFAULT_HOOK]?: boolean })[DEFAULT_HOOK] !== true;
}

/**
 * The fail-open rule for `selectContext`: accept `returned` only when it is a
 * non-empty array of plain objects; otherwise hand back the very `original`
 * array object (so an inert engine leaves the request byte-identical).
 */
export function acceptSelection<T extends readonly Message[] | Message[]>(original: T, returned: unknown): T {
  if (!Array.isArray(returned) || returned.length === 0) return original;
  for (const item of returned) {
    if (!isPlainObject(item)) return original;
  }
  return returned as unknown as T;
}

/** Why a selection was rejected, for logs and host events; null when accepted. */
export function selectionRejectionReason(returned: unknown): string | null {
  if (returned === null || returned === undefined) return "returned nothing (no-op)";
  if (!Array.isArray(returned)) return `returned ${typeof returned}, not a list`;
  if (returned.length === 0) return "returned an empty list";
  const bad = returned.findIndex((m) => !isPlainObject(m));
  if (bad >= 0) return `item ${bad} is not a message object`;
  return null;
}
