import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BUILTIN_RULES, createRedactor } from "../src/redact/index.js";
import { mayHoldSecret } from "../src/redact/prescreen.js";

/** Whether some built-in rule's pattern matches `text` (before any accept() veto). */
function someRuleMatches(text: string): string | null {
  for (const rule of BUILTIN_RULES) {
    rule.pattern.lastIndex = 0;
    const hit = rule.pattern.test(text);
    rule.pattern.lastIndex = 0;
    if (hit) return rule.kind;
  }
  return null;
}

// At least one per rule, and the variants of each rule's keyword list.
const SECRETS = [
  "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
  "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
  "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
  "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
  "sk-svcacct-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
  "sk-Ab3dEf6hIj9kLm2nOp5qRs8t",
  "AKIAIOSFODNN7EXAMPLE",
  "ASIAIOSFODNN7EXAMPLE",
  "ABIAIOSFODNN7EXAMPLE",
  "ACCAIOSFODNN7EXAMPLE",
  "ghp_0123456789abcdefghijABCDEFGHIJ012345",
  "gho_0123456789abcdefghijABCDEFGHIJ012345",
  "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
  "xoxb-1234567890-abcdefghij",
  "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
  "AIzaSyA1234567890abcdefghijklmnopqrstuv",
  "sk_live_0123456789abcdefABCD",
  "rk_test_0123456789abcdefABCD",
  "whsec_live_0123456789abcdefABCD",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  "Authorization: Bearer abcDEF123456ghiJKL789",
  "authorization: bearer abcDEF123456ghiJKL789==",
  "Token\tabcdefghijklmnop.qrst",
  "token packages/core/src/index.ts",
  "Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==",
  "postgres://app:s3cr3t-pw@db:5432/app",
  "HTTPS://user:p%40ss@example.com/x",
  "redis://default:hunter2x@cache:6379",
  "ftp://u:p@host",
  'config = { "password": "hunter2!x" }',
  "export DB_PASSWORD=Tr0ub4dor&3",
  "passwd := abcd1234",
  "PASSPHRASE => 'xyzzy-42'",
  "pwd: s3cr3t!",
  "client_secret=abc123def",
  "SECRET_KEY_BASE = 'a1b2c3d4e5'",
  "api_key: 'abcd1234efgh'",
  "apiKey=ZXhhbXBsZQ1",
  "API-KEY :abcd-1234-efgh",
  "private_key = 'MIIEabc123'",
  "privatekey: q1w2e3r4",
  "access_token = ya29.a0Af",
  "AUTH-TOKEN: 0123456789",
  "refreshToken\"= 'r1r2r3r4'",
  "X-Api-Key: 9f8e7d6c5b4a3210",
  "x-auth-token:  abcdef0123456789",
  "X-Access-Token : abcdef0123456789",
  "Private-Token: glpat-abcdefghij1234",
  `password_${"a".repeat(29)}=value123`,
];

describe("redaction pre-screen", () => {
  it("passes every secret any rule catches, alone and inside text", () => {
    for (const secret of SECRETS) {
      expect(someRuleMatches(secret), secret).not.toBeNull();
      for (const text of [secret, `prefix words ${secret} and more`, `line one\n${secret}\nline three`]) {
        expect(mayHoldSecret(text), text).toBe(true);
      }
    }
  });

  it("rejects ordinary prose, code and logs, including words like token and password", () => {
    for (const text of [
      "the token budget is 4096 tokens",
      "Reset your password in the settings page.",
      "const tokencounter = await TokenCounter(value, 12);",
      "see https://example.com/docs/api for the secret sauce",
      "2026-01-12 ERROR KeyStore: key rotation failed",
      "src/lib/parseconfig.ts:42: the api key is read from the environment",
      "task-runner finished; disk-usage ok",
    ]) {
      expect(mayHoldSecret(text), text).toBe(false);
      expect(someRuleMatches(text), text).toBeNull();
    }
  });

  it("is never false where a rule matches (random text built from rule fragments)", () => {
    const fragment = fc.constantFrom(
      "password", "passwd", "passphrase", "pwd", "secret", "client_secret", "api_key", "apikey", "api-key", "x-api-key",
      "private_key", "private-key", "access_token", "auth-token", "refresh_token", "private-token", "x-auth-token",
      "Bearer", "bearer", "Token", "token", "Basic", "basic", "sk-", "sk-ant-", "sk-proj-", "AKIA", "ASIA", "ghp_",
      "github_pat_", "xoxb-", "https://hooks.slack.com/services/", "AIza", "sk_live_", "pk_test_", "eyJ", ".eyJ",
      "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "postgres://", "https://", "user", "u", "@", ":", "=",
      ":=", "=>", '"', "'", " ", "  ", "\t", "\n", "_", "-", ".", "/", "abcdefgh", "ABCDEFGHIJKLMNOP", "0123456789",
      "Ab3dEf6hIj9kLm2nOp5q", "hunter2!", "${X}", "[REDACTED:jwt]",
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 14 }), (pieces) => {
        const text = pieces.join("");
        if (someRuleMatches(text) !== null) expect(mayHoldSecret(text)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it("leaves the redactor's output unchanged: the same texts come out as the rules alone make them", () => {
    // A custom rule turns the screen off; with a rule that never matches, the result is the rules-only path.
    const screened = createRedactor();
    const unscreened = createRedactor({ extra: [{ kind: "never", pattern: "\\u0000never\\u0000" }] });
    const samples = [...SECRETS, "the token budget is 4096 tokens", "token retryWithBackoff here", "const password = getPassword();"];
    for (const s of samples) {
      const a = screened.redactText(`text ${s} end`);
      const b = unscreened.redactText(`text ${s} end`);
      expect(a.text).toBe(b.text);
      expect(a.found).toEqual(b.found);
    }
  });
});
