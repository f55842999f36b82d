import { describe, expect, it } from "vitest";
import { createRedactor, RedactionConfigSchema, toRedactionConfig } from "../src/redact/index.js";

const r = createRedactor();
const red = (s: string) => r.redactText(s).text;

describe("redaction: what is caught, readably", () => {
  const cases: Array<[string, string, string]> = [
    ["openai_key", "key: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "key: [REDACTED:openai_key]"],
    ["anthropic_key", "ANTHROPIC sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "ANTHROPIC [REDACTED:anthropic_key]"],
    ["aws_access_key", "id AKIAIOSFODNN7EXAMPLE here", "id [REDACTED:aws_access_key] here"],
    ["github_token", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED:github_token]"],
    ["slack_token", "xoxb-1234567890-abcdefghij", "[REDACTED:slack_token]"],
    ["google_api_key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:google_api_key]"],
    ["stripe_key", "sk_live_0123456789abcdefABCD", "[REDACTED:stripe_key]"],
    ["jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[REDACTED:jwt]"],
    ["bearer_token", "Authorization: Bearer abcDEF123456ghiJKL789", "Authorization: Bearer [REDACTED:bearer_token]"],
    ["url_password", "DATABASE_URL=postgres://app:s3cr3t-pw@db:5432/app", "DATABASE_URL=postgres://app:[REDACTED:url_password]@db:5432/app"],
    ["password_assignment", 'config = { "password": "hunter2!x" }', 'config = { "password": "[REDACTED:password_assignment]" }'],
    ["password_assignment", "export DB_PASSWORD=Tr0ub4dor&3", "export DB_PASSWORD=[REDACTED:password_assignment]"],
    ["generic_api_key", "curl -H 'X-Api-Key: 9f8e7d6c5b4a3210' https://api", "curl -H 'X-Api-Key: [REDACTED:generic_api_key]' https://api"],
  ];
  for (const [kind, input, expected] of cases) {
    it(kind + ": " + input.slice(0, 30), () => {
      const out = r.redactText(input);
      expect(out.text).toBe(expected);
      expect(out.found[kind]).toBe(1);
    });
  }

  it("redacts a whole private key block, even JSON-escaped", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc+/def==\n-----END RSA PRIVATE KEY-----";
    expect(red(`key:\n${pem}\nafter`)).toBe("key:\n[REDACTED:private_key]\nafter");
    expect(red(JSON.stringify({ k: pem }))).toBe('{"k":"[REDACTED:private_key]"}');
  });

  it("catches an assignment whose name runs on for 30 characters after the keyword", () => {
    const name = `password_${"a".repeat(29)}`;
    expect(red(`${name}=Tr0ub4dor&3`)).toBe(`${name}=[REDACTED:password_assignment]`);
  });

  it("is idempotent", () => {
    for (const [, input] of cases) expect(red(red(input))).toBe(red(input));
  });
});

describe("redaction: what is left alone", () => {
  it("keeps code, placeholders and prose", () => {
    for (const s of [
      "password = getPassword()",
      "const password = process.env.DB_PASSWORD;",
      'password: "${DB_PASSWORD}"',
      "password: <your password>",
      "the token budget is 4096 tokens",
      "Reset your password in the settings page.",
      "see https://example.com/docs/api",
      "api_key: null",
      "sk-short",
    ]) {
      expect(red(s)).toBe(s);
    }
  });
});

describe("redaction: configuration", () => {
  it("can be disabled entirely or per kind, extended and allow-listed", () => {
    expect(createRedactor(false).redactText("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z").text).toContain("sk-proj");
    const noJwt = createRedactor({ disable: ["jwt"] });
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
    expect(noJwt.redactText(jwt).text).toBe(jwt);
    const extra = createRedactor({ extra: [{ kind: "ticket", pattern: "TCK-\\d{6}" }] });
    expect(extra.redactText("see TCK-123456 now").text).toBe("see [REDACTED:ticket] now");
    const allow = createRedactor({ allow: ["AKIAIOSFODNN7EXAMPLE"] });
    expect(allow.redactText("AKIAIOSFODNN7EXAMPLE").text).toBe("AKIAIOSFODNN7EXAMPLE");
  });

  it("rejects bad custom patterns at configuration time, naming the rule", () => {
    expect(() => createRedactor({ extra: [{ kind: "bad", pattern: "([a-" }] })).toThrow(/extra\[0\] \(bad\)/);
    expect(() => createRedactor({ extra: [{ kind: "empty", pattern: "x*" }] })).toThrow(/empty string/);
  });

  it("parses the config block", () => {
    expect(toRedactionConfig(RedactionConfigSchema.parse(undefined))).toEqual({});
    expect(toRedactionConfig(RedactionConfigSchema.parse(false))).toBe(false);
    const parsed = RedactionConfigSchema.safeParse({ disable: ["nope"] });
    expect(parsed.success).toBe(false);
  });
});
