/**
 * Where a screen fragment (a regex source, matched case-insensitively) can start, read from its source: the
 * characters its first positions must hold, and three shapes of fragment without three fixed leading characters
 * that a scan can still find by a cheap necessary condition (anchored-screen.ts). Only the simple syntax the
 * rules use is read; anything else yields nothing, and such a fragment is left to a regex over the whole text.
 */

/** Characters a regex source may hold as themselves (outside a class); anything else ends a literal run. */
const PLAIN = /^[A-Za-z0-9_:~=#@%&!,;'"` <>-]$/;
/** Escapes that stand for one literal character (`\.` and the like), never a class such as `\s` or `\b`. */
const ESCAPED_PUNCTUATION = /^[./\\\-$^*+?()[\]{}|"'`=:!#@%&,;<>~]$/;
/** Control-character escapes (`\t`), inside a class or out. */
const ESCAPED_CONTROL: Readonly<Record<string, string>> = { t: "\t", n: "\n", r: "\r" };

/** Most combinations one fragment may add to the trigram table (a class like `[A-Za-z0-9]` is left to the rest). */
export const MAX_COMBINATIONS = 256;

/** One escaped character of a class body at `i` (`\t`, `\.`), as [the character, the index after it]; null otherwise. */
function classEscape(body: string, i: number): [string, number] | null {
  const e = body[i + 1];
  if (e === undefined) return null;
  if (ESCAPED_CONTROL[e] !== undefined) return [ESCAPED_CONTROL[e]!, i + 2];
  return ESCAPED_PUNCTUATION.test(e) ? [e, i + 2] : null;
}

/**
 * The ASCII characters of a simple class body (`a-f0-9`, `pousr`, ` \t`); null for a negated class, a class
 * escape (`\s`, `\w`), a range with an escaped end, or non-ASCII.
 */
export function classMembers(body: string): string[] | null {
  if (body.startsWith("^")) return null;
  const out: string[] = [];
  for (let i = 0; i < body.length; ) {
    if (body[i] === "\\") {
      const escaped = classEscape(body, i);
      if (!escaped || (body[escaped[1]] === "-" && escaped[1] + 1 < body.length)) return null;
      out.push(escaped[0]);
      i = escaped[1];
      continue;
    }
    const from = body.charCodeAt(i);
    if (from > 127) return null;
    if (body[i + 1] === "-" && i + 2 < body.length) {
      const to = body.charCodeAt(i + 2);
      if (to > 127 || to < from || body[i + 2] === "\\") return null;
      for (let c = from; c <= to; c++) out.push(String.fromCharCode(c));
      i += 3;
    } else {
      out.push(body[i]!);
      i += 1;
    }
  }
  return out;
}

/** The item at `i` (a literal, an escaped character, a simple class): its characters and the index after it. */
function readItem(fragment: string, i: number): { set: string[]; next: number } | null {
  const c = fragment[i];
  if (c === undefined) return null;
  if (c === "\\") {
    const e = fragment[i + 1] ?? "";
    if (ESCAPED_CONTROL[e] !== undefined) return { set: [ESCAPED_CONTROL[e]!], next: i + 2 };
    return ESCAPED_PUNCTUATION.test(e) ? { set: [e], next: i + 2 } : null;
  }
  if (c === "[") {
    const close = fragment.indexOf("]", i + 2);
    const set = close > 0 && fragment[close - 1] !== "\\" ? classMembers(fragment.slice(i + 1, close)) : null;
    return set && set.length ? { set, next: close + 1 } : null;
  }
  return PLAIN.test(c) ? { set: [c], next: i + 1 } : null;
}

/** A quantifier at `i` (`?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`): its bounds and the index after it; null when none. */
function readQuantifier(fragment: string, i: number): { min: number; max: number; next: number } | null {
  const q = fragment[i];
  let out: { min: number; max: number; next: number } | null = null;
  if (q === "?") out = { min: 0, max: 1, next: i + 1 };
  else if (q === "*") out = { min: 0, max: Infinity, next: i + 1 };
  else if (q === "+") out = { min: 1, max: Infinity, next: i + 1 };
  else if (q === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(fragment.slice(i));
    if (!m) return null;
    const min = Number(m[1]);
    out = { min, max: m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity, next: i + m[0].length };
  }
  // A lazy quantifier (`??`, `{0,9}?`) has the same bounds.
  if (out && fragment[out.next] === "?") out.next++;
  return out;
}

/**
 * The characters each of the first positions of every match of `fragment` can hold, as far as they are
 * fixed (literal characters, escaped characters, simple classes); stops at a group, an optional item,
 * or anything else. Example: `gh[pousr]_` gives [g], [h], [p,o,u,s,r], [_].
 */
export function leadingSets(fragment: string, limit = 3): string[][] {
  const out: string[][] = [];
  let i = 0;
  while (i < fragment.length && out.length < limit) {
    const item = readItem(fragment, i);
    if (!item) break;
    const q = fragment[item.next];
    // An item that may be absent (`a?`, `a*`, `a{0,2}`) ends the run before it; one repeated (`a+`, `a{3}`) ends it after.
    if (q === "?" || q === "*" || (q === "{" && fragment[item.next + 1] === "0")) break;
    out.push(item.set);
    if (q === "+" || q === "{") break;
    i = item.next;
  }
  return out;
}

/** Stands in a character set for every character that is not ASCII (`\s` matches some). */
export const NON_ASCII = "\u0080";
/** What `\s` matches: ASCII white space, and some characters that are not ASCII. */
const SPACE = [" ", "\t", "\n", "\r", "\v", "\f", NON_ASCII];

/** The index of the `)` that closes the group opening at `open`; -1 when there is none. */
function groupEnd(fragment: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < fragment.length; i++) {
    const c = fragment[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/** `alternatives` split at its top-level bars. */
function topLevelAlternatives(alternatives: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let i = 0; i < alternatives.length; i++) {
    const c = alternatives[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(alternatives.slice(from, i));
      from = i + 1;
    }
  }
  out.push(alternatives.slice(from));
  return out;
}

/**
 * The characters the first character matched from `i` on can be, looking through optional items and
 * non-capturing groups (`token(?:[_-]\w*)?[:=]` from 5: `_`, `-`, `:`, `=`); null when it is unknown or the
 * rest may match nothing (then any character, or the end, may follow).
 */
export function firstSet(fragment: string, i: number): string[] | null {
  const out = new Set<string>();
  for (;;) {
    if (i >= fragment.length) return null;
    let set: string[];
    let next: number;
    if (fragment.startsWith("(?:", i)) {
      const close = groupEnd(fragment, i);
      if (close < 0) return null;
      set = [];
      for (const alternative of topLevelAlternatives(fragment.slice(i + 3, close))) {
        const first = firstSet(alternative, 0);
        if (!first) return null;
        set.push(...first);
      }
      next = close + 1;
    } else if (fragment.startsWith("\\s", i)) {
      set = SPACE;
      next = i + 2;
    } else {
      const item = readItem(fragment, i);
      if (!item) return null;
      set = item.set;
      next = item.next;
    }
    for (const c of set) out.add(c);
    const q = readQuantifier(fragment, next);
    if (!q || q.min > 0) return [...out];
    i = q.next;
  }
}

/**
 * The characters each of the first `limit` positions of every match of `fragment` must hold, further than
 * `leadingSets` reads: a repeated item fills as many positions as it must match (`[a-f0-9]{32}` gives 32)
 * and the run stops after it; where an optional item or a group stops it, the characters the next position
 * can hold come last (`firstSet`). Example: `pat[A-Za-z0-9]{14}\.` gives [p], [a], [t], then 14 alike.
 */
export function leadingPositions(fragment: string, limit = 12): string[][] {
  const out: string[][] = [];
  let i = 0;
  while (i < fragment.length && out.length < limit) {
    const item = readItem(fragment, i);
    const q = item ? readQuantifier(fragment, item.next) : null;
    if (!item || (q && q.min === 0)) {
      const next = firstSet(fragment, i);
      if (next) out.push(next);
      break;
    }
    for (let k = 0; k < (q ? q.min : 1) && out.length < limit; k++) out.push(item.set);
    if (q) break;
    i = item.next;
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
export function hasTopLevelBar(fragment: string): boolean {
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

/** Plain words joined by `|` (`pass|pwd`), each of plain characters only; null otherwise. */
function plainWords(alternatives: string): string[] | null {
  const words = alternatives.split("|");
  return words.every((w) => w.length > 0 && [...w].every((c) => PLAIN.test(c))) ? words : null;
}

/**
 * The fragment as alternatives that each start as plainly as possible, for reading their starts (never run):
 * a leading group of plain words that must match is split (`(?:pass|pwd)x` gives `passx`, `pwdx`), and an optional item among
 * the first three is taken and left out (`xhs?[ \t]` gives `xhs[ \t]`, `xh[ \t]`). Together they start
 * wherever the fragment can.
 */
export function startVariants(fragment: string): string[] {
  const group = /^\(\?:([^()[\]\\]+)\)(?![?*+{])/.exec(fragment);
  const words = group ? plainWords(group[1]!) : null;
  if (group && words) return words.flatMap((w) => startVariants(w + fragment.slice(group[0].length)));
  let i = 0;
  for (let n = 0; n < 3; n++) {
    const item = readItem(fragment, i);
    if (!item) break;
    if (fragment[item.next] === "?" && fragment[item.next + 1] !== "?") {
      const rest = fragment.slice(item.next + 1);
      return [...startVariants(fragment.slice(0, item.next) + rest), ...startVariants(fragment.slice(0, i) + rest)];
    }
    if (fragment[item.next] !== undefined && "*+{".includes(fragment[item.next]!)) break;
    i = item.next;
  }
  return [fragment];
}

/** Both cases of each ASCII letter in `set` (the screen is case-insensitive). */
export function withBothCases(set: readonly string[]): string[] {
  return [...new Set(set.flatMap((c) => [c.toLowerCase(), c.toUpperCase()]))];
}

/**
 * A fragment that starts with one item from `first` followed by `min` to `max` characters of `run` (one class
 * with a count), then a character of `follow` (null: any, or none): `:[A-Za-z0-9_-]{30}`,
 * `[MNO][A-Za-z0-9_-]{20,30}\.`. A scan finds it from its first character when that is not in the run, else
 * from the character after the run.
 */
export interface RunStart {
  first: string[];
  run: string[];
  min: number;
  max: number;
  follow: string[] | null;
}

/** `fragment` read as a `RunStart` (a run of at least 8 characters, so it is rare in prose), or null. */
export function runStart(fragment: string): RunStart | null {
  const first = readItem(fragment, 0);
  if (!first || (fragment[first.next] !== undefined && "?*+{".includes(fragment[first.next]!))) return null;
  const run = readItem(fragment, first.next);
  if (!run || fragment[first.next] !== "[") return null;
  const q = readQuantifier(fragment, run.next);
  if (!q || q.min < 8) return null;
  const follow = firstSet(fragment, q.next);
  return { first: withBothCases(first.set), run: withBothCases(run.set), min: q.min, max: q.max, follow: follow && withBothCases(follow) };
}

/**
 * A fragment that starts with one item from `first`, then at most `max` characters of `between`, then one of
 * `words` (each three characters or more): `-[a-z-]{0,30}(?:pass|pwd|token)`. A scan finds it from the word
 * back: the first three characters of a word, then a walk back over `between` to a `first` character.
 */
export interface WordAfter {
  first: string[];
  between: string[];
  max: number;
  words: string[];
}

/** `fragment` read as a `WordAfter`, or null. */
export function wordAfter(fragment: string): WordAfter | null {
  const first = readItem(fragment, 0);
  if (!first || (fragment[first.next] !== undefined && "?*+{".includes(fragment[first.next]!))) return null;
  const between = fragment[first.next] === "[" ? readItem(fragment, first.next) : null;
  const q = between ? readQuantifier(fragment, between.next) : null;
  if (!between || !q || q.min !== 0 || !Number.isFinite(q.max)) return null;
  // The words must be there: a group that may be absent (`(?:a|b)?`) is not read.
  const group = /^\(\?:([^()[\]\\]+)\)(?![?*+{])/.exec(fragment.slice(q.next));
  const words = group ? plainWords(group[1]!) : null;
  if (!words || words.some((w) => w.length < 3)) return null;
  return { first: withBothCases(first.set), between: withBothCases(between.set), max: q.max, words };
}
