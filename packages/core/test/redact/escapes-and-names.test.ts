import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/redact/index.js";
import { ALNUM, awsKeyId, base64Secret, chars, hex } from "./arbitraries.js";

/** Tokens inside JSON-escaped text (tool-call arguments), and long machine values under secret names with other suffixes. */

describe("tokens right after a JSON or shell escape", () => {
  it("are found after \\n, \\t and \\r inside JSON strings", () => {
    const token = fc.oneof(
      chars(ALNUM, 36, 40).map((s) => `ghp_${s}`),
      chars(ALNUM, 36, 36).map((s) => `npm_${s}`),
      awsKeyId(),
      chars(ALNUM, 24, 40).map((s) => `sk-proj-${s}`),
      chars(ALNUM, 30, 34).map((s) => `glpat-${s}`),
    );
    fc.assert(
      fc.property(token, fc.constantFrom("\n", "\t", "\r\n"), (t, esc) => {
        fc.pre(/\d/.test(t.slice(4)));
        const text = JSON.stringify({ command: `cat ~/.config${esc}${t}${esc}` });
        expect(redactSecrets(text), text).not.toContain(t);
      }),
      { numRuns: 200 },
    );
  });

  it("AWS credentials files and STS JSON inside a tool call's JSON arguments", () => {
    fc.assert(
      fc.property(awsKeyId("ASIA"), base64Secret(40), chars(ALNUM, 40, 80), (id, secret, session) => {
        const file = `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${secret}\naws_session_token = IQoJb3JpZ2lu${session}\n`;
        const sts = JSON.stringify({ Credentials: { AccessKeyId: id, SecretAccessKey: secret, SessionToken: `FwoGZXIvYXdz${session}` } });
        for (const text of [JSON.stringify({ path: "~/.aws/credentials", content: file }), JSON.stringify({ stdout: sts })]) {
          const out = redactSecrets(text);
          expect(out).not.toContain(id);
          expect(out).not.toContain(secret);
          expect(out).not.toContain(session);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("machine-made values under secret names with any suffix (.env files)", () => {
  const name = fc.constantFrom("SECRET_KEY_BASE", "secret_key_base", "RAILS_SECRET_KEY_BASE", "APP_SECRET_TOKEN_PROD", "api_key_live", "SECRET_SAUCE", "session_secret_v2");
  it("long hex or base64 values are redacted", () => {
    fc.assert(
      fc.property(name, fc.oneof(hex(64), hex(128), base64Secret(44)), fc.constantFrom("=", ": ", "=\"", " = '"), (n, value, sep) => {
        const close = sep.endsWith('"') ? '"' : sep.endsWith("'") ? "'" : "";
        const text = `${n}${sep}${value}${close}`;
        expect(redactSecrets(text), text).not.toContain(value);
      }),
      { numRuns: 200 },
    );
  });

  it("hashes, ids and names of secrets stay", () => {
    fc.assert(
      fc.property(fc.constantFrom("secret_hash", "SECRET_SHA256", "secret_key_id", "api_key_fingerprint", "secret_name", "SECRET_KEY_VERSION", "secret_commit"), hex(64), (n, value) => {
        expect(redactSecrets(`${n}=${value}`)).toBe(`${n}=${value}`);
      }),
    );
  });
});
