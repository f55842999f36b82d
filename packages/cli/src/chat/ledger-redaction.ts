import type { CustomSecretRule, SecretRuleOptions } from "@context-engine/core";

/**
 * The secret rules the ledger file is redacted with: the user's own rules from `engines.lcm.redaction`
 * (kinds turned off, extra detectors, allowed strings) when that section sets them, else every built-in
 * rule. The ledger is redacted even where LCM's redaction is switched off: it is the host's file.
 */
export function ledgerRedactionOf(engines: Record<string, unknown> | undefined): SecretRuleOptions {
  const section = engines?.lcm;
  const redaction = section && typeof section === "object" ? (section as Record<string, unknown>).redaction : undefined;
  if (!redaction || typeof redaction !== "object") return {};
  const r = redaction as { disable?: unknown; extra?: unknown; allow?: unknown };
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const extra = Array.isArray(r.extra)
    ? r.extra.filter((x): x is CustomSecretRule => !!x && typeof x === "object" && typeof (x as CustomSecretRule).kind === "string" && typeof (x as CustomSecretRule).pattern === "string")
    : [];
  return { disable: strings(r.disable), extra, allow: strings(r.allow) };
}
