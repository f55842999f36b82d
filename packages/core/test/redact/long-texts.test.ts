import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSecretRedactor, createSecretRedactor } from "../../src/redact/redactor.js";
import { NOT_SECRETS, SECRET_CORPUS } from "../../src/test/secret-corpus.js";

/**
 * The anchored redactor against the plain regexes (`compileSecretRedactor(opts, false)`, the reference) on long
 * texts: prose and code around planted secrets of every family, near-misses (a secret cut short, one character
 * changed, its case flipped), text that is not ASCII, and the shapes the scan reads by runs, words and bigrams.
 */
const anchored = createSecretRedactor();
const plain = compileSecretRedactor({}, false);

const secret = fc.constantFrom(...SECRET_CORPUS.map((c) => c.text), ...SECRET_CORPUS.map((c) => c.secret));
const nearMiss = fc.tuple(secret, fc.nat(), fc.constantFrom("cut", "change", "case", "space")).map(([s, n, how]) => {
  const at = n % s.length;
  if (how === "cut") return s.slice(0, at);
  if (how === "change") return s.slice(0, at) + (s[at] === "a" ? "." : "a") + s.slice(at + 1);
  if (how === "case") return s.slice(0, at) + s.slice(at).toUpperCase();
  return `${s.slice(0, at)} ${s.slice(at)}`;
});
const runShaped = fc.constantFrom(
  // Discord and Telegram shapes (runs), the password flag (a word after a dash), Azure's `Q~` (a bigram), and look-alikes.
  "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyzABCD",
  "NzA1Njc4OTAxMjM0NTY3ODkw.Xy-_12.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh",
  "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
  ":ABCDEFGHIJKLMNOPQRSTUVWXYZabc",
  "--db-password hunter2isnotgood",
  "-storepass Zk8#qL2vT9",
  "abc1Q~Zx8vL2mN7pQ4rS9tU3wX6yA1bC5dE0f",
  "q~",
  "curl -u admin:Pa55w0rd! https://example.com",
  "xh -a user:S3cr3tP4ss https://api.example.com",
  "pwd: Xk9#mP2vLq7Zt8",
);
const prose = fc.constantFrom(
  "The deploy finished without errors. ",
  "def handler(request):\n    return {'status': 200}\n",
  "see https://example.com/docs/getting-started.html for the token budget ",
  "中文的说明文字，没有秘密。",
  "Émile a écrit: « le mot de passe est changé ». ",
  "😀 emoji and \uD800 a lone surrogate ",
  "a_very_long_identifier_name_that_goes_on.and_on ",
  "password policy: rotate every 90 days. ",
  "-".repeat(40),
  "x".repeat(64),
);

function agrees(text: string): void {
  expect(anchored.redactText(text), JSON.stringify(text.slice(0, 200))).toEqual(plain.redactText(text));
}

describe("the anchored redactor gives the plain regexes' output on long texts", () => {
  it("prose and code around planted secrets, near-misses and run-shaped values", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(prose, prose, secret, nearMiss, runShaped), { minLength: 20, maxLength: 80 }), (pieces) => agrees(pieces.join(""))),
      { numRuns: 300 },
    );
  });

  it("every corpus text and non-secret, joined into one long text and alone", () => {
    const all = [...SECRET_CORPUS.map((c) => c.text), ...NOT_SECRETS];
    agrees(all.join("\n"));
    agrees(all.join(" 中文 "));
    for (const t of all) agrees(`${"lorem ipsum ".repeat(200)}${t}${"\n".repeat(3)}`);
  });
});
