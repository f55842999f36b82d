import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_SECRET_RULES, factorByFirstChar, SECRET_SCREEN } from "../../src/redact/index.js";
import { SECRET_CORPUS } from "../../src/test/secret-corpus.js";

/** The rules a text matches (before any accept() veto). */
function matching(text: string): string[] {
  return BUILTIN_SECRET_RULES.filter((rule) => {
    rule.pattern.lastIndex = 0;
    const hit = rule.pattern.test(text);
    rule.pattern.lastIndex = 0;
    return hit;
  }).map((r) => r.kind);
}

const hints = BUILTIN_SECRET_RULES.map((rule) => ({ rule, hint: new RegExp(factorByFirstChar(rule.screen), "i") }));

/** Every rule that matches `text` has a screen that matches it too, and so does the combined pre-screen. */
function expectScreened(text: string): void {
  for (const { rule, hint } of hints) {
    rule.pattern.lastIndex = 0;
    if (rule.pattern.test(text)) {
      expect(hint.test(text), `${rule.kind}: ${JSON.stringify(text)}`).toBe(true);
      expect(SECRET_SCREEN.test(text), JSON.stringify(text)).toBe(true);
    }
    rule.pattern.lastIndex = 0;
  }
}

describe("the pre-screen is a superset of every rule", () => {
  it("passes every corpus secret", () => {
    for (const { text } of SECRET_CORPUS) {
      expect(matching(text).length, text).toBeGreaterThan(0);
      expectScreened(text);
    }
  });

  it("is never false where a rule matches (random text built from every family's fragments)", () => {
    const fragment = fc.constantFrom(
      "password", "PASSWORD", "passwd", "pass", "PASS", "pwd", "Pass", "passphrase", "secret", "client_secret", "token", "TOKEN", "_token",
      "api_key", "apiKey", "credentials", "_key", "Key", "auth", "sig", "signature", "aws_secret_access_key", "SecretAccessKey",
      "SessionToken", "aws_session_token", "X-Amz-Security-Token", "IQoJb3JpZ2lu", "FwoGZXIvYXdz", "AKIAQ3EGRTYP5MXW7ZKD",
      "Hq7vR2xK9mPz4LwN8cT1bY6fJ3dS0gA5eU+iO/pQ", "[REDACTED:aws_access_key]", "Bearer", "Authorization: ", "Cookie", "Set-Cookie", "cookie",
      "PHPSESSID", "connect.sid", "_app_session", "-b", "--cookie", "curl", "wget", "mysql", "docker login", "-p", "-u", "--user",
      "--password", "--db-password", "-storepass", "-passin", "pass:", "redis://", "https://", "u", ":", "@", "=", "=>", ":=", "?", "&",
      '"', "'", "\\", " ", "\t", "\n", "_", "-", ".", "/", "is", "the", "Xk9#mP2vLq7Zt8", "abcdefgh", "ABCDEFGHIJKLMNOP", "0123456789",
      "aB3dE6hI9kL2nO5q", "sk-proj-", "ghp_", "eyJ", "AccountKey=", "auths", "identitytoken",
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 16 }), (pieces) => {
        expectScreened(pieces.join(""));
      }),
      { numRuns: 5_000 },
    );
  });
});
