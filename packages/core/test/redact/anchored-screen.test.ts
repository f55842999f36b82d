import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildAnchoredScreen, leadingSets } from "../../src/redact/anchored-screen.js";
import { buildSecretScreen, compileSecretRedactor, createSecretRedactor, SECRET_SCREEN } from "../../src/redact/redactor.js";
import { BUILTIN_SECRET_RULES } from "../../src/redact/rules.js";
import { NOT_SECRETS, SECRET_CORPUS } from "../../src/test/secret-corpus.js";

const FRAGMENTS = BUILTIN_SECRET_RULES.flatMap((r) => r.screen);
const anchored = buildAnchoredScreen(BUILTIN_SECRET_RULES.map((r) => r.screen))!;
const withAnchors = createSecretRedactor();
const plain = compileSecretRedactor({}, false);

/**
 * The anchored screen answers as the screen does; where it clears a text, the redactor without anchors leaves it
 * as it is; the redactor with anchors (screen and rule choice) gives exactly what the plain regexes give.
 */
function agrees(text: string): void {
  const hit = anchored.test(text);
  expect(hit, JSON.stringify(text)).toBe(SECRET_SCREEN.test(text));
  const expected = plain.redactText(text);
  if (!hit) expect(expected.text, JSON.stringify(text)).toBe(text);
  expect(withAnchors.redactText(text), JSON.stringify(text)).toEqual(expected);
}

/** Strings matching one screen fragment (the redactor's own shapes), for every fragment fast-check can generate from. */
const generable = FRAGMENTS.flatMap((f) => {
  try {
    const arb = fc.stringMatching(new RegExp(`^(?:${f})$`));
    fc.sample(arb, 1);
    return [arb];
  } catch {
    return [];
  }
});

const caseFlip = (s: string, flips: readonly boolean[]) => [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join("");
const filler = fc.constantFrom("", " ", "\n", "the token budget", "x", "=", ":", '"', "_", "-", ".", "/", "password", "api key", "é", "中文", "😀", "\uD800");

describe("anchored secret screen", () => {
  it("reads the fixed start of a fragment", () => {
    expect(leadingSets("gh[pousr]_")).toEqual([["g"], ["h"], ["p", "o", "u", "s", "r"]]);
    expect(leadingSets("sk[a-f0-9]{32}").map((s) => s.length)).toEqual([1, 1, 16]);
    expect(leadingSets("xhs?[ \\t]")).toEqual([["x"], ["h"]]);
    expect(leadingSets("hv[sb]\\.")).toEqual([["h"], ["v"], ["s", "b"]]);
    expect(leadingSets("(?:pass|pwd)")).toEqual([]);
    expect(leadingSets("a{0,2}bc")).toEqual([]);
  });

  it("most fragments are anchored, and fast-check can generate most of them", () => {
    expect(FRAGMENTS.filter((f) => leadingSets(f).length === 3).length).toBeGreaterThan(FRAGMENTS.length * 0.9);
    expect(generable.length).toBeGreaterThan(FRAGMENTS.length * 0.8);
  });

  it("flags every corpus secret and agrees with the screen on the corpus and its look-alikes", () => {
    for (const { text, secret } of SECRET_CORPUS) {
      for (const t of [text, secret, `words before ${text} and after`, text.toUpperCase(), text.toLowerCase()]) agrees(t);
      expect(anchored.test(text), text).toBe(true);
    }
    for (const text of NOT_SECRETS) agrees(text);
  });

  it("agrees with the screen on text built around generated matches of every fragment, in any case", () => {
    fc.assert(
      fc.property(fc.oneof(...generable), filler, filler, fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }), (secret, before, after, flips) => {
        agrees(before + secret + after);
        agrees(caseFlip(before + secret + after, flips));
        // Cut short by one character: a look-alike that may no longer match.
        agrees(before + secret.slice(0, -1) + after);
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees with the screen on random text from fragment pieces and arbitrary strings", () => {
    const piece = fc.oneof(filler, fc.string({ maxLength: 6 }), fc.constantFrom("sk", "gh", "pat", "xox", "eyJ", "AKIA", "key-", "q~", "-us1", "ig=", "ass", "M", "N", "O"));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (pieces) => agrees(pieces.join(""))),
      { numRuns: 5000 },
    );
  });

  it("follows the rules left on when some are disabled, and with custom rules beside them", () => {
    const kinds = [...new Set(BUILTIN_SECRET_RULES.map((r) => r.kind))];
    const disable = kinds.filter((_, i) => i % 3 === 0);
    const rules = BUILTIN_SECRET_RULES.filter((r) => !disable.includes(r.kind));
    const partial = buildAnchoredScreen(rules.map((r) => r.screen))!;
    const screen = buildSecretScreen(rules);
    const options = [{ disable }, { extra: [{ kind: "ticket", pattern: "TICKET-[0-9]{6}" }] }, { allow: [SECRET_CORPUS[0]!.secret] }];
    for (const { text } of SECRET_CORPUS) {
      expect(partial.test(text), text).toBe(screen.test(text));
      for (const o of options) {
        const t = `${text} TICKET-123456`;
        expect(createSecretRedactor(o).redactText(t), t).toEqual(compileSecretRedactor(o, false).redactText(t));
      }
    }
  });
});
