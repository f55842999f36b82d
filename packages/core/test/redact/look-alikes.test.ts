import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSecretRedactor, redactSecrets } from "../../src/redact/index.js";
import { NOT_SECRETS, SECRET_CORPUS } from "../../src/test/secret-corpus.js";
import { awsKeyId, base64OfProse, hex, randomSecret } from "./arbitraries.js";

const RUNS = { numRuns: 300 };
function survives(text: string): void {
  expect(redactSecrets(text), text).toBe(text);
}

describe("look-alikes survive", () => {
  it("hashes, also next to a name or an access key id", () => {
    fc.assert(
      fc.property(fc.constantFrom(32, 40, 56, 64), fc.constantFrom("commit %s", "sha256: %s", "cache_key=%s", "etag: \"%s\"", "checksum = %s", "digest %s", "%s  package.tgz"), (n, shape) => {
        fc.assert(fc.property(hex(n), (h) => {
          survives(shape.replace("%s", h));
        }), { numRuns: 5 });
      }),
      { numRuns: 60 },
    );
    // A 40-character git hash sits next to an access key id without being taken for its secret key.
    fc.assert(fc.property(awsKeyId(), hex(40), (id, h) => {
      expect(redactSecrets(`${id} committed ${h}`)).toContain(h);
    }), RUNS);
  });

  it("UUIDs and request ids, whatever they are called", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.constantFrom("id: %s", "session_id=%s", "request-id %s", '"trace_key": "%s"', "auth_request=%s", "the token %s expired"), (u, shape) => {
        survives(shape.replace("%s", u));
      }),
      RUNS,
    );
  });

  it("base64 of ordinary text, also of short words", () => {
    // Counterexamples fast-check once found: "at ut vivamus" and "a ullamcorper", encoded.
    survives("encoded_key: YXQgdXQgdml2YW11cw==");
    survives("encoded_key: YSB1bGxhbWNvcnBlcg==");
    fc.assert(
      fc.property(base64OfProse, fc.constantFrom("data: %s", "payload=%s", "body: \"%s\"", "encoded_key: %s", "the message was %s"), (b, shape) => {
        survives(shape.replace("%s", b));
      }),
      RUNS,
    );
  });

  it("variable names, code and placeholders (decision: a placeholder is not a secret and stays readable)", () => {
    const names = fc.constantFrom("password", "passwd", "secret", "token", "api_key", "private_key", "client_secret");
    const suffixes = fc.constantFrom("_field", "_length", "_min_length", "_input", "_hash_fn", "Field", "_reset_url", "_label");
    fc.assert(
      fc.property(names, suffixes, (n, s) => {
        survives(`${n}${s} = forms.CharField(max_length=128)`);
        survives(`if (${n}${s} < 8) return;`);
        survives(`self.${n}${s} = ${n}${s}`);
        survives(`${n}${s}: ${n}Input`);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(
        names,
        fc.constantFrom("<your password>", "<API_KEY>", "${DB_PASSWORD}", "$SECRET", "{{ secrets.TOKEN }}", "********", "xxxxxxxxxxxx", "YOUR_API_KEY", "your-token-here", "changeme", "None", "null", "os.environ['X']", "getpass()", "process.env.TOKEN", "..."),
        fc.constantFrom("=", ": ", " = "),
        (n, placeholder, sep) => {
          survives(`${n}${sep}${placeholder}`);
        },
      ),
      RUNS,
    );
    for (const text of [
      "mysql -u root -p app_db",
      "docker login -u me --password-stdin registry.io",
      "curl -u \"$USER:$TOKEN\" https://api.example.com",
      "postgres://user:${PGPASSWORD}@db/app",
      "some-tool --password $DB_PASSWORD --token-file ./token.txt",
      "--max-tokens 4096 --token-budget 100",
      "docker run -u 1000:1000 image",
      "git checkout -b feature/login-token",
      "document.cookie = \"theme=dark\"",
      "Cookie: theme=dark",
      "https://example.com/search?q=signature&sig=short",
      "tokenizer: cl100k_base",
      "2026-01-12 ERROR KeyStore: key rotation failed",
      "pass: 12 fail: 0",
      "passthrough: enabled",
      "the password: remember to rotate it",
      "the token budget is 4096 tokens",
      "password reset link sent to the user",
      // From real agent traces: test-result labels and the canonical placeholder URL.
      "PASS: .a/foo.py was ignored",
      "FAIL: tests/test_a.py::test_b\nPASS: tests/test_c.py",
      "proxy = 'http://user:pass@localhost:8080'",
      "passed: 12, failed: 0",
    ]) {
      survives(text);
    }
  });

  it("random identifiers that read like words are not taken from prose", () => {
    fc.assert(
      fc.property(fc.constantFrom("the password is", "token", "secret:"), fc.lorem({ maxCount: 3 }), (lead, words) => {
        survives(`${lead} ${words}`);
      }),
      RUNS,
    );
  });
});

describe("the shared corpus and the redactor's contract", () => {
  it("masks every corpus secret and leaves every corpus look-alike", () => {
    expect(SECRET_CORPUS.filter(({ text, secret }) => redactSecrets(text).includes(secret)).map((c) => c.text)).toEqual([]);
    expect(NOT_SECRETS.filter((t) => redactSecrets(t) !== t)).toEqual([]);
  });

  it("is idempotent and never grows a marker inside a marker", () => {
    // A random value taken as a word before another ("token <a> <b>") is redacted in the same call, not the next.
    const twice = " token aA0anaaV_b-Q aA0aaa#nWE83";
    expect(redactSecrets(redactSecrets(twice))).toBe(redactSecrets(twice));
    expect(redactSecrets(twice)).not.toContain("aA0anaaV_b-Q");
    fc.assert(
      fc.property(fc.array(fc.oneof(randomSecret(), fc.constantFrom("password=", " token ", "AKIA", "://u:", "@h ", "Cookie: a=", "\n", " ")), { maxLength: 12 }), (parts) => {
        const once = redactSecrets(parts.join(""));
        expect(redactSecrets(once)).toBe(once);
        expect(once).not.toMatch(/\[REDACTED:[a-z_]*\[REDACTED/);
      }),
      RUNS,
    );
  });

  it("disables kinds, adds custom rules and allow-lists exact strings", () => {
    const text = "password=Tr0ub4dor&3 and ghp_0123456789abcdefghijABCDEFGHIJ012345";
    expect(createSecretRedactor({ disable: ["github_token"] }).redactText(text).text).toContain("ghp_0123");
    expect(createSecretRedactor({ allow: ["Tr0ub4dor&3"] }).redactText(text).text).toContain("Tr0ub4dor&3");
    const custom = createSecretRedactor({ extra: [{ kind: "ticket", pattern: "TCK-\\d{6}" }] });
    expect(custom.redactText("see TCK-123456").text).toBe("see [REDACTED:ticket]");
    expect(custom.screen).toBeUndefined();
    expect(() => createSecretRedactor({ extra: [{ kind: "bad", pattern: "([a-" }] })).toThrow(/extra\[0\] \(bad\)/);
  });

  it("finishes on adversarial long inputs (linear-time patterns)", () => {
    const long = 100_000;
    for (const text of [
      `password=${"a".repeat(long)}`,
      `${"token ".repeat(long / 6)}`,
      `Cookie: ${"a=".repeat(long / 2)}`,
      `curl ${"-u ".repeat(long / 3)}`,
      `mysql ${"a".repeat(long)} -p`,
      `AKIA${"A".repeat(16)} ${"aB1/".repeat(long / 4)}`,
      `${"secret".repeat(long / 6)}=`,
      `https://${"a:".repeat(long / 2)}@`,
    ]) {
      expect(redactSecrets(text).length).toBeGreaterThan(0);
    }
  });
});
