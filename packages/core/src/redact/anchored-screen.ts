import { factorByFirstChar } from "./screen-source.js";
import {
  hasTopLevelBar,
  leadingPositions,
  leadingSets,
  MAX_COMBINATIONS,
  type RunStart,
  runStart,
  startVariants,
  withBothCases,
  type WordAfter,
  wordAfter,
} from "./fragment-anchors.js";

export { leadingLiteral, leadingSets } from "./fragment-anchors.js";

/**
 * The redaction pre-screen, and the choice of rules to try, answered without running a big regex at every
 * position of a text. One pass over the text's character codes finds the places where a screen fragment
 * (what every match of a rule contains) can start, by a necessary condition read from the fragment
 * (fragment-anchors.ts), and tries the whole screen there alone (sticky):
 * - most fragments start with three fixed characters: their case-folded trigram, then the characters after it
 *   as far as the fragment fixes them (through optional items: `token(?:[_-]\w*)?[:=]` needs one of `_-:=`);
 * - `S[class]{n,m}` (`:[A-Za-z0-9_-]{30}`): from an S character, n class characters ahead; or, when S is in
 *   the class (`[MNO][A-Za-z0-9_-]{20,30}\.`), from the character after the run, back to an S n to m before;
 * - `S[class]{0,m}(?:word|…)`: a word's first three characters, then a walk back over the class to an S;
 * - two fixed characters (`q~`): their bigram.
 * Fragments of any other shape run as one smaller regex over the whole text. The answer is the screen's own:
 * a text is cleared only when no fragment matches anywhere. The same scan tells which rules may match (a
 * superset: the rule's own hint still decides). test/redact/anchored-screen.test.ts checks both against the regexes.
 */

/**
 * Trigram keys: three character codes, 8 bits each, kept rolling as the scan moves: an ASCII code
 * case-folded (no `u` flag, so /i folds ASCII to ASCII only), any other character as 128, which no fragment
 * start holds (so the scan needs no branch for it). A key is hashed to 18 bits to find its slot; keys sharing
 * a slot share its checks: a collision only costs a needless try, never a missed match.
 */
const KEY_MASK = (1 << 24) - 1;
const NOT_ASCII = 0x808080;
const SLOT_BITS = 18;
const slotOf = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - SLOT_BITS);
const BIGRAM_MASK = (1 << 16) - 1;
/** The key byte of every UTF-16 code unit. */
const FOLD = new Uint8Array(1 << 16).fill(128);
for (let c = 0; c < 128; c++) FOLD[c] = c >= 65 && c <= 90 ? c + 32 : c;
/** The code units that fold to each key byte (a letter's two cases). */
const FOLDED_TO: number[][] = Array.from({ length: 129 }, () => []);
for (let c = 0; c < 128; c++) FOLDED_TO[FOLD[c]!]!.push(c);

/** The key a scan starts with: three characters that are not ASCII. */
const START_KEY = NOT_ASCII;

const NO_CLASS = new Uint8Array(1 << 16);
const ANY_CHARACTER = new Uint8Array(129).fill(1);
const fold = (ch: string) => FOLD[ch.charCodeAt(0)]!;

/**
 * Membership of `chars` (ASCII, already in both cases where that matters; `NON_ASCII` for every other
 * character, at 128), by code; `size` 1 << 16 for a table read by every UTF-16 code unit.
 */
function tableOf(chars: readonly string[], size = 128): Uint8Array {
  const t = new Uint8Array(Math.max(size, 129));
  for (const ch of chars) t[Math.min(ch.charCodeAt(0), 128)] = 1;
  return t;
}

const hasBit = (bits: Int32Array, key: number) => (bits[key >>> 5]! & (1 << (key & 31))) !== 0;
const setBit = (bits: Int32Array, key: number) => {
  bits[key >>> 5]! |= 1 << (key & 31);
};

/** Every folded key of `width` leading characters of `sets` (each position's characters combined). */
function keysOf(sets: readonly string[][], width: number): number[] {
  let keys = [0];
  for (let k = 0; k < width; k++) keys = keys.flatMap((key) => sets[k]!.map((ch) => (key << 8) | fold(ch)));
  return [...new Set(keys)];
}

/** How many keys `width` leading sets give; Infinity when there are fewer sets. */
function combinations(sets: readonly string[][], width: number): number {
  return sets.length < width ? Infinity : sets.slice(0, width).reduce((n, s) => n * s.length, 1);
}

/**
 * A run fragment, found from a character of `first` when none is in the run (walk forward over `min` run
 * characters), else from a character of the follow set, none in the run (walk back over `min` to `max`).
 */
interface RunCheck {
  first: Uint8Array;
  run: Uint8Array;
  min: number;
  max: number;
}

/** Per character, what it may trigger: the end of a bigram, the first character of a run, the character after one. */
const BIGRAM_END = 1;
const RUN_FIRST = 2;
const RUN_AFTER = 4;

interface WordCheck {
  first: Uint8Array;
  between: Uint8Array;
  max: number;
}

/** What one trigram slot asks of a text: the rules it may start, the characters after it, the words it begins. */
interface Slot {
  rules: number[];
  /** Per fragment start, the characters each following position must hold. */
  tails: Uint8Array[][];
  /** The characters right after the trigram that some tail accepts (every ASCII one when a tail is empty). */
  next: Uint8Array;
  words: WordCheck[];
}

/** Where the fragments can start, by shape, and the rules each trigram may start. */
class StartIndex {
  /** Slot number by hashed trigram (0: no fragment starts there). */
  readonly slotAt = new Uint16Array(1 << SLOT_BITS);
  readonly slots: Slot[] = [{ rules: [], tails: [], next: NO_CLASS, words: [] }];
  readonly bigrams = new Int32Array((BIGRAM_MASK + 1) >>> 5);
  /** What each UTF-16 code unit may trigger (`BIGRAM_END`, `RUN_FIRST`, `RUN_AFTER` bits). */
  readonly triggers = new Uint8Array(1 << 16);
  /** Run fragments found from their first character, and from the character after the run. */
  readonly runsFrom: RunCheck[] = [];
  readonly runsTo: RunCheck[] = [];
  readonly rest: string[] = [];

  /** File `fragment` of rule `rule` by shape: "trigram", "other" (no rule choice by it), or null when no scan can use it. */
  add(fragment: string, rule: number): "trigram" | "other" | null {
    if (hasTopLevelBar(fragment)) return null;
    const variants = startVariants(fragment);
    const starts = variants.map((v) => leadingSets(v));
    if (starts.every((s) => combinations(s, 3) <= MAX_COMBINATIONS)) {
      variants.forEach((v, n) => {
        const tail = leadingPositions(v).slice(3).map((set) => tableOf(withBothCases(set)));
        for (const key of keysOf(starts[n]!, 3)) {
          const slot = this.#slot(key);
          if (!slot.rules.includes(rule)) slot.rules.push(rule);
          slot.tails.push(tail);
          const next = tail[0] ?? ANY_CHARACTER;
          for (let c = 0; c <= 128; c++) slot.next[c]! |= next[c]!;
        }
      });
      return "trigram";
    }
    return this.#addRun(runStart(fragment)) || this.#addWords(wordAfter(fragment)) || this.#addBigrams(starts) ? "other" : null;
  }

  #slot(key: number): Slot {
    const at = slotOf(key);
    if (this.slotAt[at] === 0) {
      this.slotAt[at] = this.slots.length;
      this.slots.push({ rules: [], tails: [], next: new Uint8Array(129), words: [] });
    }
    return this.slots[this.slotAt[at]!]!;
  }

  /** A run fragment whose first character is not in its run, or whose run ends at a known character outside it. */
  #addRun(run: RunStart | null): boolean {
    if (!run) return false;
    const check: RunCheck = { first: tableOf(run.first), run: tableOf(run.run), min: run.min, max: run.max };
    const asciiOutside = (set: readonly string[] | null) => set !== null && set.every((c) => c.charCodeAt(0) < 128 && check.run[c.charCodeAt(0)] === 0);
    if (asciiOutside(run.first)) {
      this.runsFrom.push(check);
      for (const c of run.first) this.triggers[c.charCodeAt(0)]! |= RUN_FIRST;
    } else if (asciiOutside(run.follow) && Number.isFinite(run.max)) {
      this.runsTo.push(check);
      for (const c of run.follow!) this.triggers[c.charCodeAt(0)]! |= RUN_AFTER;
    } else return false;
    return true;
  }

  #addWords(w: WordAfter | null): boolean {
    if (!w) return false;
    const check: WordCheck = { first: tableOf(w.first), between: tableOf(w.between), max: w.max };
    for (const word of w.words) this.#slot(keysOf([...word.slice(0, 3)].map((ch) => [ch]), 3)[0]!).words.push(check);
    return true;
  }

  #addBigrams(starts: readonly string[][][]): boolean {
    if (!starts.every((s) => combinations(s, 2) <= MAX_COMBINATIONS)) return false;
    for (const key of starts.flatMap((s) => keysOf(s, 2))) {
      setBit(this.bigrams, key);
      for (const ch of FOLDED_TO[key & 0xff]!) this.triggers[ch]! |= BIGRAM_END;
    }
    return true;
  }
}

export interface AnchoredScreen {
  /** Whether the screen (every fragment joined) matches `text`: false means no rule can match it. */
  test(text: string): boolean;
  /** Per rule, 1 where its hint may match `text` (its fragments' trigrams occur, or it has a fragment of another shape). */
  candidates(text: string): Uint8Array;
  /** The fragments of no shape the scan knows, run as one regex over the whole text. */
  readonly unscanned: readonly string[];
}

/**
 * Build the anchored form of the screen over each rule's `screen` fragments (the ones `buildSecretScreen`
 * joins, in rule order). Null when no fragment has a usable start (nothing to gain).
 */
export function buildAnchoredScreen(ruleScreens: readonly (readonly string[])[]): AnchoredScreen | null {
  const always = new Uint8Array(ruleScreens.length);
  const index = new StartIndex();
  let trigramFragments = 0;
  ruleScreens.forEach((fragments, rule) => {
    for (const f of fragments) {
      const shape = index.add(f, rule);
      if (shape === null) index.rest.push(f);
      if (shape === "trigram") trigramFragments++;
      else always[rule] = 1;
    }
  });
  if (trigramFragments === 0) return null;
  const at = new RegExp(factorByFirstChar(ruleScreens.flat()), "iy");
  const elsewhere = index.rest.length ? new RegExp(factorByFirstChar(index.rest), "i") : null;
  const tryAt = (text: string, p: number): boolean => {
    at.lastIndex = p;
    return at.test(text);
  };
  return {
    test: (text) => scanFor(text, index, tryAt) || (elsewhere !== null && elsewhere.test(text)),
    candidates: (text) => candidatesOf(text, index, always),
    unscanned: index.rest,
  };
}

/** Whether a fragment matches somewhere in `text`, trying the screen only where a fragment can start. */
function scanFor(text: string, index: StartIndex, tryAt: (text: string, p: number) => boolean): boolean {
  const { slotAt, slots, triggers } = index;
  const n = text.length;
  let key = START_KEY;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    key = ((key << 8) | FOLD[c]!) & KEY_MASK;
    const s = slotAt[slotOf(key)]!;
    if (s !== 0 && (key & NOT_ASCII) === 0 && trigramHit(text, i, slots[s]!, tryAt)) return true;
    const t = triggers[c]!;
    if (t !== 0 && triggerHit(text, i, key, t, index, tryAt)) return true;
  }
  return false;
}

/** A character that ends a bigram start, starts a run fragment or follows one: try where the fragment would start. */
function triggerHit(text: string, i: number, key: number, t: number, index: StartIndex, tryAt: (text: string, p: number) => boolean): boolean {
  if ((t & BIGRAM_END) !== 0 && (key & 0x8080) === 0 && hasBit(index.bigrams, key & BIGRAM_MASK) && tryAt(text, i - 1)) return true;
  if ((t & RUN_FIRST) !== 0) {
    for (const { first, run, min } of index.runsFrom) {
      if (first[text.charCodeAt(i)] !== 1 || i + min >= text.length) continue;
      let k = 1;
      while (k <= min && run[Math.min(text.charCodeAt(i + k), 128)] === 1) k++;
      if (k > min && tryAt(text, i)) return true;
    }
  }
  if ((t & RUN_AFTER) !== 0) {
    // The run ends just before i: its first character is `min` to `max` run characters back.
    for (const { first, run, min, max } of index.runsTo) {
      for (let j = i - 1; j >= 0 && j >= i - 1 - max; j--) {
        const c = Math.min(text.charCodeAt(j), 128);
        if (i - 1 - j >= min && first[c] === 1 && tryAt(text, j)) return true;
        if (run[c] === 0) break;
      }
    }
  }
  return false;
}

/** A trigram that may start a fragment (try there when the characters after it fit) or a word some fragment ends with (walk back to its start). */
function trigramHit(text: string, i: number, slot: Slot, tryAt: (text: string, p: number) => boolean): boolean {
  // The end of the text fits only an empty tail (as any character does).
  // The end of the text fits only an empty tail; a character, the tables (128 for any that is not ASCII).
  const fits = i + 1 < text.length ? slot.next[Math.min(text.charCodeAt(i + 1), 128)] === 1 : slot.tails.some((t) => t.length === 0);
  if (fits && tailsFit(text, i + 1, slot.tails) && tryAt(text, i - 2)) return true;
  for (const { first, between, max } of slot.words) {
    for (let j = i - 3; j >= 0 && j >= i - 3 - max; j--) {
      const c = text.charCodeAt(j);
      if (c > 127) break;
      if (first[c] === 1 && tryAt(text, j)) return true;
      if (between[c] === 0) break;
    }
  }
  return false;
}

/** Whether the characters from `from` on fit one of `tails` (each position's table in turn). */
function tailsFit(text: string, from: number, tails: readonly Uint8Array[][]): boolean {
  next: for (const tail of tails) {
    if (from + tail.length > text.length) continue;
    for (let k = 0; k < tail.length; k++) {
      if (tail[k]![Math.min(text.charCodeAt(from + k), 128)] === 0) continue next;
    }
    return true;
  }
  return false;
}

/** Per rule, 1 where one of its trigrams occurs in `text` (or shares a slot with one) or it has a fragment of another shape. */
function candidatesOf(text: string, index: StartIndex, always: Uint8Array): Uint8Array {
  const out = always.slice();
  const { slotAt, slots } = index;
  let key = START_KEY;
  for (let i = 0; i < text.length; i++) {
    key = ((key << 8) | FOLD[text.charCodeAt(i)]!) & KEY_MASK;
    const s = slotAt[slotOf(key)]!;
    if (s !== 0 && (key & NOT_ASCII) === 0) for (const rule of slots[s]!.rules) out[rule] = 1;
  }
  return out;
}

