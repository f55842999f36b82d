import { createSecretRedactor, redactionMarker } from "@context-engine/core";
import type { RedactionConfig, RedactionResult, Redactor } from "./types.js";

/** The placeholder a secret is replaced with. Never matched by any rule (idempotent). */
export { redactionMarker };

const NOTHING: Readonly<Record<string, number>> = Object.freeze({});

/**
 * Compile a redactor from the shared secret families and this engine's
 * configuration. Invalid custom patterns throw here (at configuration time,
 * with the offending rule named), never while redacting.
 */
export function createRedactor(config: RedactionConfig | false | undefined = {}): Redactor {
  if (config === false || config.enabled === false) {
    return { enabled: false, redactText: (text) => ({ text, found: NOTHING as Record<string, number> }) };
  }
  const shared = createSecretRedactor({
    ...(config.disable ? { disable: config.disable } : {}),
    ...(config.extra ? { extra: config.extra } : {}),
    ...(config.allow ? { allow: config.allow } : {}),
  });
  const redactText = (text: string): RedactionResult => shared.redactText(text);
  return shared.screen ? { enabled: true, redactText, screen: shared.screen } : { enabled: true, redactText };
}

/**
 * Redact every string inside a JSON-like value (objects, arrays). Returns the
 * same object when nothing changed, so callers can cheaply detect a change.
 */
export function redactDeep<T>(redactor: Redactor, value: T, found: Record<string, number>): T {
  if (!redactor.enabled) return value;
  if (typeof value === "string") {
    // Inline binary (data URLs) cannot hold a readable secret; skip the scan.
    if (value.startsWith("data:") && value.length > 256) return value;
    const r = redactor.redactText(value);
    for (const [k, n] of Object.entries(r.found)) found[k] = (found[k] ?? 0) + n;
    return r.text as T;
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactDeep(redactor, v, found);
      if (r !== v) changed = true;
      return r;
    });
    return (changed ? out : value) as T;
  }
  if (value && typeof value === "object") {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const r = redactDeep(redactor, v, found);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return (changed ? out : value) as T;
  }
  return value;
}
