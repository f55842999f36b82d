import { buildAnchoredScreen } from "./anchored-screen.js";
import { BUILTIN_SECRET_RULES } from "./rules.js";
import { factorByFirstChar } from "./screen-source.js";
import type { RedactionResult, SecretRule, SecretRuleOptions } from "./types.js";

/** The placeholder a secret is replaced with. Never matched by any rule (idempotent). */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

export { factorByFirstChar };

const NOTHING: Readonly<Record<string, number>> = Object.freeze({});
const SECRET_GROUPS = ["secret", "secret2", "secret3", "secret4", "secret5", "secret6"];

/**
 * One case-insensitive regex that matches wherever any of `rules` could: a
 * text it does not match holds no secret those rules find (no global flag, so
 * `test` keeps no state).
 */
export function buildSecretScreen(rules: readonly SecretRule[]): RegExp {
  return new RegExp(factorByFirstChar(rules.flatMap((r) => r.screen)), "i");
}

/** The default screen over every built-in rule. */
export const SECRET_SCREEN: RegExp = buildSecretScreen(BUILTIN_SECRET_RULES);

export interface SecretRedactor {
  redactText(text: string): RedactionResult;
  /** The pre-screen `redactText` runs first, when every rule has one (no custom rules). */
  readonly screen?: RegExp;
  readonly rules: readonly SecretRule[];
}

interface CompiledRule {
  rule: SecretRule;
  hint: RegExp | null;
}

function compileExtra(options: SecretRuleOptions): SecretRule[] {
  return (options.extra ?? []).map((extra, i) => {
    let pattern: RegExp;
    try {
      const flags = new Set((extra.flags ?? "").split(""));
      flags.add("g");
      pattern = new RegExp(extra.pattern, [...flags].join(""));
    } catch (error) {
      throw new Error(`redaction.extra[${i}] (${extra.kind}): invalid pattern: ${(error as Error).message}`);
    }
    if (pattern.test("")) throw new Error(`redaction.extra[${i}] (${extra.kind}): the pattern matches the empty string`);
    return { kind: extra.kind, pattern, screen: [] };
  });
}

/** Replace one match (or only its `secret` group) with the marker, unless the rule or the allow list vetoes it. */
function replacer(rule: SecretRule, allow: ReadonlySet<string>, count: (kind: string) => void) {
  return (...args: unknown[]): string => {
    const match = args[0] as string;
    const last = args[args.length - 1];
    const groups = (typeof last === "object" && last !== null ? last : undefined) as Record<string, string | undefined> | undefined;
    const secret = groups ? SECRET_GROUPS.map((g) => groups[g]).find((v) => v !== undefined) : undefined;
    const target = secret ?? match;
    if (target.startsWith("[REDACTED:") || allow.has(target)) return match;
    if (rule.accept && !rule.accept(target, match, groups)) return match;
    count(rule.kind);
    if (secret === undefined) return redactionMarker(rule.kind);
    const at = match.lastIndexOf(secret);
    return match.slice(0, at) + redactionMarker(rule.kind) + match.slice(at + secret.length);
  };
}

const MAX_PASSES = 8;

/**
 * Compile a redactor from the built-in families (minus `disable`), plus
 * `extra` rules. Invalid custom patterns throw here, naming the rule, never
 * while redacting.
 */
export function createSecretRedactor(options: SecretRuleOptions = {}): SecretRedactor {
  return compileSecretRedactor(options, true);
}

/** `createSecretRedactor`, with the trigram anchors or without them (the plain regexes, as tests compare). */
export function compileSecretRedactor(options: SecretRuleOptions, withAnchors: boolean): SecretRedactor {
  const disabled = new Set(options.disable ?? []);
  const allow = new Set(options.allow ?? []);
  const builtins = BUILTIN_SECRET_RULES.filter((r) => !disabled.has(r.kind));
  const extra = compileExtra(options);
  const rules: SecretRule[] = [...builtins, ...extra];
  const compiled: CompiledRule[] = rules.map((rule) => ({ rule, hint: rule.screen.length ? new RegExp(factorByFirstChar(rule.screen), "i") : null }));
  const screen = extra.length ? undefined : disabled.size ? buildSecretScreen(builtins) : SECRET_SCREEN;
  // The screen and each rule's hint, answered by one scan for where a fragment can start (anchored-screen.ts):
  // the same answers as the regexes, without running them at every position of every text.
  const anchored = withAnchors ? anchoredFor(rules) : null;

  const redactText = (text: string): RedactionResult => {
    if (!text || text.length < 8) return { text, found: NOTHING as Record<string, number> };
    // One scan decides whether any rule can match at all (most text holds no secret).
    if (screen && !(anchored ? anchored.test(text) : screen.test(text))) return { text, found: NOTHING as Record<string, number> };
    let out = text;
    let found: Record<string, number> | null = null;
    const count = (kind: string) => {
      found ??= {};
      found[kind] = (found[kind] ?? 0) + 1;
    };
    // A pass that found a secret runs again: a value a rule took as a word before the secret ("token <a> <b>") is
    // seen once its neighbour is a marker, so redacting twice never changes the text (bounded: each pass that
    // changes something turns a secret into a marker).
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const before = out;
      // Rules whose hint may match (a superset); worked out again whenever a replacement changes the text.
      let may = anchored?.candidates(out) ?? null;
      for (let r = 0; r < compiled.length; r++) {
        const { rule, hint } = compiled[r]!;
        if (hint && ((may !== null && may[r] === 0) || !hint.test(out))) continue;
        rule.pattern.lastIndex = 0;
        const next = out.replace(rule.pattern, replacer(rule, allow, count));
        if (next !== out && anchored) may = anchored.candidates(next);
        out = next;
      }
      if (out === before) break;
    }
    return { text: out, found: found ?? (NOTHING as Record<string, number>) };
  };
  return screen ? { redactText, screen, rules } : { redactText, rules };
}

/** Anchored screens by rule set: built once (tables of about 700 KiB), shared by every redactor with the same rules. */
const anchoredByRules = new Map<string, ReturnType<typeof buildAnchoredScreen>>();

function anchoredFor(rules: readonly SecretRule[]): ReturnType<typeof buildAnchoredScreen> {
  const screens = rules.map((r) => r.screen);
  const key = JSON.stringify(screens);
  let a = anchoredByRules.get(key);
  if (a === undefined) {
    a = buildAnchoredScreen(screens);
    anchoredByRules.set(key, a);
  }
  return a;
}

let defaultRedactor: SecretRedactor | undefined;

/** `text` with every secret the built-in rules find replaced by `[REDACTED:<kind>]`. */
export function redactSecrets(text: string): string {
  defaultRedactor ??= createSecretRedactor();
  return defaultRedactor.redactText(text).text;
}
