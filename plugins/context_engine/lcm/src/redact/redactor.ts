import { mayHoldSecret, SECRET_SCREEN } from "./prescreen.js";
import { BUILTIN_RULES, type SecretRule } from "./rules.js";
import type { RedactionConfig, RedactionResult, Redactor } from "./types.js";

/** The placeholder a secret is replaced with. Never matched by any rule (idempotent). */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

const NOTHING: Readonly<Record<string, number>> = Object.freeze({});

/**
 * Compile a redactor. Invalid custom patterns throw here (at configuration
 * time, with the offending rule named), never while redacting.
 */
export function createRedactor(config: RedactionConfig | false | undefined = {}): Redactor {
  if (config === false || config.enabled === false) {
    return { enabled: false, redactText: (text) => ({ text, found: NOTHING as Record<string, number> }) };
  }
  const disabled = new Set<string>(config.disable ?? []);
  const allow = new Set(config.allow ?? []);
  const rules: SecretRule[] = BUILTIN_RULES.filter((r) => !disabled.has(r.kind));
  for (const [i, extra] of (config.extra ?? []).entries()) {
    let pattern: RegExp;
    try {
      const flags = new Set((extra.flags ?? "").split(""));
      flags.add("g");
      pattern = new RegExp(extra.pattern, [...flags].join(""));
    } catch (error) {
      throw new Error(`redaction.extra[${i}] (${extra.kind}): invalid pattern: ${(error as Error).message}`);
    }
    if (pattern.test("")) throw new Error(`redaction.extra[${i}] (${extra.kind}): the pattern matches the empty string`);
    rules.push({ kind: extra.kind, pattern, hint: () => true });
  }

  const custom = rules.length > BUILTIN_RULES.length - disabled.size;
  const redactText = (text: string): RedactionResult => {
    if (!text || text.length < 8) return { text, found: NOTHING as Record<string, number> };
    // One scan decides whether any built-in rule can match at all (most text holds no secret).
    if (!custom && !mayHoldSecret(text)) return { text, found: NOTHING as Record<string, number> };
    let out = text;
    let lower = text.toLowerCase();
    let found: Record<string, number> | null = null;
    for (const rule of rules) {
      if (!rule.hint(out, lower)) continue;
      rule.pattern.lastIndex = 0;
      const before = out;
      out = out.replace(rule.pattern, (...args: unknown[]) => {
        const match = args[0] as string;
        const last = args[args.length - 1];
        const groups = (typeof last === "object" && last !== null ? last : undefined) as
          | Record<string, string | undefined>
          | undefined;
        const secret = groups?.secret;
        const target = secret ?? match;
        if (target.startsWith("[REDACTED:") || allow.has(target)) return match;
        if (rule.accept && !rule.accept(target, match)) return match;
        found ??= {};
        found[rule.kind] = (found[rule.kind] ?? 0) + 1;
        if (secret === undefined) return redactionMarker(rule.kind);
        const at = match.lastIndexOf(secret);
        return match.slice(0, at) + redactionMarker(rule.kind) + match.slice(at + secret.length);
      });
      if (out !== before) lower = out.toLowerCase();
    }
    return { text: out, found: found ?? (NOTHING as Record<string, number>) };
  };

  return custom ? { enabled: true, redactText } : { enabled: true, redactText, screen: SECRET_SCREEN };
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
