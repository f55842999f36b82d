/**
 * Find a whole word the regex cannot match without, so the full-text index can
 * narrow a regex search to the messages containing it (then the regex is run
 * on those only). Conservative: returns null unless the word is a run of ASCII
 * letters/digits at depth 0 that is required, not quantified, and delimited on
 * both sides by a guaranteed token boundary (^, $, \b, or a required
 * punctuation/space character). Any alternation disables it.
 */
type El = { kind: "alnum"; ch: string } | { kind: "sep" } | { kind: "bound" } | { kind: "other" };

function skipGroup(p: string, i: number): number {
  // p[i] === "("; return the index after the matching ")".
  let depth = 0;
  for (; i < p.length; i++) {
    const c = p[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "[") {
      i = skipClass(p, i) - 1;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return p.length;
}

function skipClass(p: string, i: number): number {
  // p[i] === "["; return the index after the closing "]".
  i++;
  if (p[i] === "^") i++;
  if (p[i] === "]") i++;
  for (; i < p.length; i++) {
    if (p[i] === "\\") {
      i++;
      continue;
    }
    if (p[i] === "]") return i + 1;
  }
  return p.length;
}

/** Parse a quantifier at i; returns its end and whether it allows zero repetitions. */
function quantifier(p: string, i: number): { end: number; optional: boolean } | null {
  const c = p[i];
  if (c === "?" || c === "*" || c === "+") {
    const end = p[i + 1] === "?" ? i + 2 : i + 1;
    return { end, optional: c !== "+" };
  }
  if (c === "{") {
    const m = /^\{(\d*)(,?)(\d*)\}\??/.exec(p.slice(i));
    if (m) return { end: i + m[0].length, optional: (m[1] === "" ? 0 : Number(m[1])) === 0 };
  }
  return null;
}

export function requiredWord(pattern: string): string | null {
  if (pattern.includes("|")) return null;
  const els: El[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    let el: El;
    let next = i + 1;
    if (c === "(") {
      el = { kind: "other" };
      next = skipGroup(pattern, i);
    } else if (c === "[") {
      el = { kind: "other" };
      next = skipClass(pattern, i);
    } else if (c === "\\") {
      const e = pattern[i + 1] ?? "";
      next = i + 2;
      if (e === "b") el = { kind: "bound" };
      else if (e === "s" || e === "W") el = { kind: "sep" };
      else if (/[A-Za-z0-9]/.test(e)) {
        el = { kind: "other" };
        if (e === "x") next = i + 4;
        else if (e === "u") next = pattern[i + 2] === "{" ? pattern.indexOf("}", i) + 1 || pattern.length : i + 6;
        else if (e === "c") next = i + 3;
        else if (e === "p" || e === "P") next = pattern[i + 2] === "{" ? pattern.indexOf("}", i) + 1 || pattern.length : i + 3;
      } else el = /[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(e) ? { kind: "sep" } : { kind: "other" };
    } else if (c === "^" || c === "$") {
      el = { kind: "bound" };
    } else if (c === ".") {
      el = { kind: "other" };
    } else if (/[A-Za-z0-9]/.test(c)) {
      el = { kind: "alnum", ch: c };
    } else if (/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(c)) {
      el = { kind: "sep" }; // space and ASCII punctuation (including _) separate tokens
    } else {
      el = { kind: "other" };
    }
    const q = quantifier(pattern, next);
    if (q) {
      next = q.end;
      if (el.kind === "alnum") el = { kind: "other" };
      else if (el.kind === "sep" && q.optional) el = { kind: "other" };
      else if (el.kind === "bound") el = { kind: "other" };
    }
    els.push(el);
    i = next;
  }
  let best: string | null = null;
  for (let s = 0; s < els.length; s++) {
    if (els[s]!.kind !== "alnum") continue;
    let e = s;
    let word = "";
    while (e < els.length && els[e]!.kind === "alnum") word += (els[e++] as { ch: string }).ch;
    const before = s > 0 && (els[s - 1]!.kind === "sep" || els[s - 1]!.kind === "bound");
    const after = e < els.length && (els[e]!.kind === "sep" || els[e]!.kind === "bound");
    if (before && after && word.length >= 3 && (!best || word.length > best.length)) best = word;
    s = e;
  }
  return best;
}

/**
 * The longest run of literal characters (at least 3) that every match of the
 * pattern contains, or null. Conservative like `requiredWord`: any
 * alternation, group or class ends a run, and a quantified character is not
 * part of one (an optional one ends it). The store uses it as a substring
 * prefilter, so a pattern without a whole word still skips most messages in SQL.
 */
export function requiredLiteral(pattern: string): string | null {
  if (pattern.includes("|") || /^\(\?[a-z]*\)/.test(pattern)) return null;
  let best = "";
  let run = "";
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    let ch: string | null = null;
    let next = i + 1;
    if (c === "(") next = skipGroup(pattern, i);
    else if (c === "[") next = skipClass(pattern, i);
    else if (c === "\\") {
      const e = pattern[i + 1] ?? "";
      next = i + 2;
      if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(e)) ch = e;
      else if (e === "x" || e === "u" || e === "p" || e === "P" || e === "c") next = pattern.length; // rare: stop looking
    } else if (!".^$*+?{}".includes(c)) ch = c;
    const q = quantifier(pattern, next);
    if (q) {
      next = q.end;
      // a+ keeps one a: the run may end with it; a*, a?, a{0,n} end the run before it.
      if (ch !== null && !q.optional) run += ch;
      end();
    } else if (ch !== null) run += ch;
    else end();
    i = next;
  }
  end();
  return best.length >= 3 ? best : null;
}
