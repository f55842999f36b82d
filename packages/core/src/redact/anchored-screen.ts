import { factorByFirstChar } from "./screen-source.js";

/**
 * The redaction pre-screen, and the choice of rules to try, answered without
 * running a big regex at every position of a text. Each screen fragment (what every match of a rule
 * contains) that starts with at least three literal characters can only
 * match where those three characters stand; a scan of the text by its
 * case-folded trigrams finds those places, and the screen is tried there
 * alone (sticky). Fragments that do not start that way run as one smaller
 * regex over the whole text. The answer is the screen's own: a text is
 * cleared only when no fragment matches anywhere. The same scan tells which
 * rules may match (a superset: the rule's own hint still decides).
 * test/redact/anchored-screen.test.ts checks both against the regexes.
 */

/**
 * Trigram keys: three ASCII codes, case-folded (the screen has no `u` flag, so /i folds ASCII to ASCII only),
 * hashed to 18 bits: a collision only costs a needless try, never a missed match.
 */
const KEY_BITS = 18;
const LOWER = new Uint8Array(128);
for (let c = 0; c < 128; c++) LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;

/** Characters a regex source may hold as themselves (outside a class); anything else ends a literal run. */
const PLAIN = /^[A-Za-z0-9_:~=#@%&!,;'"` <>-]$/;
/** Escapes that stand for one literal character (`\.` and the like), never a class such as `\s` or `\b`. */
const ESCAPED_PUNCTUATION = /^[./\\\-$^*+?()[\]{}|"'`=:!#@%&,;<>~]$/;

/** Most combinations one fragment may add to the trigram table (a class like `[A-Za-z0-9]` is left to the rest regex). */
const MAX_COMBINATIONS = 256;

/** The ASCII characters of a simple class body (`a-f0-9`, `pousr`); null for a negated class, an escape or non-ASCII. */
function classMembers(body: string): string[] | null {
  if (body.startsWith("^") || body.includes("\\")) return null;
  const out: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const from = body.charCodeAt(i);
    if (from > 127) return null;
    if (body[i + 1] === "-" && i + 2 < body.length) {
      const to = body.charCodeAt(i + 2);
      if (to > 127 || to < from) return null;
      for (let c = from; c <= to; c++) out.push(String.fromCharCode(c));
      i += 2;
    } else out.push(body[i]!);
  }
  return out;
}

/**
 * The characters each of the first positions of every match of `fragment` can hold, as far as they are
 * fixed (literal characters, escaped punctuation, simple classes); stops at a group, an optional item,
 * or anything else. Example: `gh[pousr]_` gives [g], [h], [p,o,u,s,r], [_].
 */
export function leadingSets(fragment: string, limit = 3): string[][] {
  const out: string[][] = [];
  let i = 0;
  while (i < fragment.length && out.length < limit) {
    let set: string[] | null = null;
    let next = i + 1;
    const c = fragment[i]!;
    if (c === "\\" && i + 1 < fragment.length && ESCAPED_PUNCTUATION.test(fragment[i + 1]!)) {
      set = [fragment[i + 1]!];
      next = i + 2;
    } else if (c === "[") {
      const close = fragment.indexOf("]", i + 2);
      set = close > 0 ? classMembers(fragment.slice(i + 1, close)) : null;
      next = close + 1;
    } else if (PLAIN.test(c)) set = [c];
    if (!set || set.length === 0) break;
    const q = fragment[next];
    // An item that may be absent (`a?`, `a*`, `a{0,2}`) ends the run before it; one repeated (`a+`, `a{3}`) ends it after.
    if (q === "?" || q === "*" || (q === "{" && fragment[next + 1] === "0")) break;
    out.push(set);
    if (q === "+" || q === "{") break;
    i = next;
  }
  return out;
}

/** The leading literal characters every match of `fragment` begins with ("" when it opens with a class or group). */
export function leadingLiteral(fragment: string): string {
  let out = "";
  for (const set of leadingSets(fragment, Infinity)) {
    if (set.length !== 1) break;
    out += set[0];
  }
  return out;
}

/** Whether `fragment` has a `|` outside any group or class (then its leading literal is only one branch's). */
function hasTopLevelBar(fragment: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < fragment.length; i++) {
    const c = fragment[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}

function keyOf(a: number, b: number, c: number): number {
  return ((LOWER[a]! << 11) ^ (LOWER[b]! << 5) ^ LOWER[c]!) & ((1 << KEY_BITS) - 1);
}

export interface AnchoredScreen {
  /** Whether the screen (every fragment joined) matches `text`: false means no rule can match it. */
  test(text: string): boolean;
  /** Per rule, 1 where its hint may match `text` (its fragments' trigrams occur, or it has a fragment with no fixed start). */
  candidates(text: string): Uint8Array;
}

/** Trigram -> the rules with a fragment starting with it, as a table of group numbers (0: none) and the groups. */
function trigramTable(ruleScreens: readonly (readonly string[])[], always: Uint8Array, rest: string[]): { table: Uint16Array; groups: number[][] } | null {
  const byKey = new Map<number, Set<number>>();
  ruleScreens.forEach((fragments, rule) => {
    for (const f of fragments) {
      const sets = hasTopLevelBar(f) ? [] : leadingSets(f);
      if (sets.length < 3 || sets[0]!.length * sets[1]!.length * sets[2]!.length > MAX_COMBINATIONS) {
        rest.push(f);
        always[rule] = 1;
        continue;
      }
      for (const a of sets[0]!) {
        for (const b of sets[1]!) {
          for (const c of sets[2]!) {
            const key = keyOf(a.charCodeAt(0), b.charCodeAt(0), c.charCodeAt(0));
            byKey.set(key, (byKey.get(key) ?? new Set<number>()).add(rule));
          }
        }
      }
    }
  });
  if (byKey.size === 0) return null;
  const table = new Uint16Array(1 << KEY_BITS);
  const groups: number[][] = [[]];
  const groupOf = new Map<string, number>();
  for (const [key, rules] of byKey) {
    const list = [...rules].sort((x, y) => x - y);
    const name = list.join(",");
    let g = groupOf.get(name);
    if (g === undefined) {
      g = groups.length;
      groups.push(list);
      groupOf.set(name, g);
    }
    table[key] = g;
  }
  return { table, groups };
}

/**
 * Build the anchored form of the screen over each rule's `screen` fragments (the ones `buildSecretScreen`
 * joins, in rule order). Null when no fragment has a usable fixed start (nothing to gain).
 */
export function buildAnchoredScreen(ruleScreens: readonly (readonly string[])[]): AnchoredScreen | null {
  const always = new Uint8Array(ruleScreens.length);
  const rest: string[] = [];
  const built = trigramTable(ruleScreens, always, rest);
  if (!built) return null;
  const { table, groups } = built;
  const at = new RegExp(factorByFirstChar(ruleScreens.flat()), "iy");
  const elsewhere = rest.length ? new RegExp(factorByFirstChar(rest), "i") : null;
  return {
    test(text: string): boolean {
      const n = text.length;
      if (n >= 3) {
        let a = text.charCodeAt(0);
        let b = text.charCodeAt(1);
        for (let i = 2; i < n; i++) {
          const c = text.charCodeAt(i);
          if ((a | b | c) < 128 && table[keyOf(a, b, c)] !== 0) {
            at.lastIndex = i - 2;
            if (at.test(text)) return true;
          }
          a = b;
          b = c;
        }
      }
      return elsewhere !== null && elsewhere.test(text);
    },
    candidates(text: string): Uint8Array {
      const out = always.slice();
      const n = text.length;
      if (n < 3) return out;
      let a = text.charCodeAt(0);
      let b = text.charCodeAt(1);
      for (let i = 2; i < n; i++) {
        const c = text.charCodeAt(i);
        if ((a | b | c) < 128) {
          const g = table[keyOf(a, b, c)]!;
          if (g !== 0) for (const rule of groups[g]!) out[rule] = 1;
        }
        a = b;
        b = c;
      }
      return out;
    },
  };
}
