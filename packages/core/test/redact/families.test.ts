import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { entropyPerChar, redactSecrets } from "../../src/redact/index.js";
import { ALNUM, assignmentSep, awsKeyId, base64Secret, chars, quote, randomSecret, secretName } from "./arbitraries.js";

/** Every secret is gone, a marker stands in its place, and redacting again changes nothing. */
function expectRedacted(text: string, ...secrets: string[]): void {
  const out = redactSecrets(text);
  for (const s of secrets) expect(out, `${JSON.stringify(text)} -> ${JSON.stringify(out)}`).not.toContain(s);
  expect(out).toMatch(/\[REDACTED:[a-z_]+\]/);
  expect(redactSecrets(out)).toBe(out);
}

const RUNS = { numRuns: 300 };

describe("secret families, generated variants", () => {
  it("key=value in code, env files, YAML, INI and JSON (password: …, PASSWORD=…, \"pass\": \"…\", pwd=…)", () => {
    fc.assert(
      fc.property(secretName, assignmentSep, quote, randomSecret(), fc.constantFrom("", "export ", "  ", "set ", "$env:", "- "), (name, sep, q, value, lead) => {
        // Unquoted `pass:` is mostly a test-result label: there the family is entropy-bounded.
        const label = /^pass$/i.test(name) && sep.trim() === ":" && q === "";
        if (!label || entropyPerChar(value) >= 3.5) expectRedacted(`${lead}${name}${sep}${q}${value}${q}`, value);
        expectRedacted(`{"${name}": "${value}", "user": "app"}`, value);
        expectRedacted(JSON.stringify({ log: `{"${name}":"${value}"}` }), value);
      }),
      RUNS,
    );
  });

  it("bare words assigned to a password or secret name", () => {
    fc.assert(
      fc.property(fc.constantFrom("password", "DB_PASSWORD", "pwd", "secret", "client_secret", "passwd"), chars("abcdefghijklmnopqrstuvwxyz", 6, 20), (name, word) => {
        fc.pre(!["password", "secret", "passwd", "example", "changeme", "placeholder", "redacted", "undefined", "default"].includes(word));
        expectRedacted(`${name}=${word}`, `=${word}`);
      }),
      RUNS,
    );
  });

  it("command-line flags: --password value, --password=value, mysql -pVALUE, curl -u user:pass, docker login -p", () => {
    const value = randomSecret(10, 30, "!%^*+_~");
    fc.assert(
      fc.property(value, fc.constantFrom("password", "db-password", "passwd", "token", "api-key", "client-secret", "secret"), fc.constantFrom(" ", "="), quote, (v, flag, sep, q) => {
        expectRedacted(`some-tool --${flag}${sep}${q}${v}${q} --verbose`, v);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(value, fc.constantFrom("mysql", "mysqldump", "mariadb", "mysqladmin"), quote, (v, cmd, q) => {
        expectRedacted(`${cmd} -h db.internal -u root -p${q}${v}${q} app_db`, v);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(value, fc.constantFrom("curl", "curl -s", "wget", "curl -X POST"), fc.constantFrom("-u ", "--user ", "--user=", "-u"), chars(ALNUM, 1, 12), quote, (v, cmd, flag, user, q) => {
        expectRedacted(`${cmd} ${flag}${q}${user}:${v}${q} https://api.example.com/v1`, `:${v}`);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(value, (v) => {
        expectRedacted(`docker login -u deploy -p ${v} registry.example.com`, v);
        expectRedacted(`keytool -importkeystore -srcstorepass ${v} -deststorepass ${v}`, v);
        expectRedacted(`openssl pkcs12 -export -passout pass:${v} -out cert.p12`, v);
      }),
      RUNS,
    );
  });

  it("URL user-info: scheme://user:pass@host and redis://:pass@host", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("postgres", "postgresql", "mysql", "redis", "rediss", "mongodb", "mongodb+srv", "amqp", "https", "ftp"),
        fc.constantFrom("", "app", "admin", "default", "svc-user"),
        randomSecret(8, 30, "-_~!*"),
        (scheme, user, pw) => {
          expectRedacted(`DATABASE_URL=${scheme}://${user}:${pw}@db.internal:5432/app`, `:${pw}@`);
          expectRedacted(`connect("${scheme}://${user}:${pw}@cache/0")`, pw);
        },
      ),
      RUNS,
    );
  });

  it("AWS: secret key next to an access key id, credentials files, env, STS JSON, session tokens", () => {
    fc.assert(
      fc.property(awsKeyId("AKIA"), base64Secret(40), fc.constantFrom(" ", "\n", ", ", " / ", "\t", " and the secret is "), (id, secret, between) => {
        expectRedacted(`${id}${between}${secret}`, id, secret);
        expectRedacted(`${secret}${between}${id}`, id, secret);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(awsKeyId("ASIA"), base64Secret(40), base64Secret(120), fc.constantFrom("IQoJb3JpZ2lu", "FwoGZXIvYXdz"), fc.boolean(), (id, secret, rest, head, pretty) => {
        const token = head + rest;
        const sts = { Credentials: { AccessKeyId: id, SecretAccessKey: secret, SessionToken: token, Expiration: "2026-01-01T00:00:00Z" } };
        expectRedacted(JSON.stringify(sts, null, pretty ? 2 : 0), id, secret, token);
        expectRedacted(`[profile ci]\naws_access_key_id = ${id}\naws_secret_access_key = ${secret}\naws_session_token = ${token}\nregion = eu-west-1`, id, secret, token);
        expectRedacted(`export AWS_SECRET_ACCESS_KEY=${secret}\nexport AWS_SESSION_TOKEN="${token}"`, secret, token);
        // A session token alone, recognised by its prefix.
        expectRedacted(`token: ${token}`, token);
      }),
      RUNS,
    );
  });

  it("Docker auth JSON and Azure SAS / pre-signed URLs", () => {
    fc.assert(
      fc.property(chars(ALNUM, 3, 12), randomSecret(10, 30, "!%*_-"), (user, pw) => {
        const auth = btoa(`${user}:${pw}`);
        expectRedacted(JSON.stringify({ auths: { "https://index.docker.io/v1/": { auth } } }, null, 2), auth);
        expectRedacted(JSON.stringify({ auths: { "ghcr.io": { auth, identitytoken: pw + "Zz9" } } }), auth, `${pw}Zz9`);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(chars("abcdefghijklmnopqrstuvwxyz0123456789", 3, 20), base64Secret(44), (account, sig) => {
        const encoded = encodeURIComponent(sig);
        const url = `https://${account}.blob.core.windows.net/c/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&spr=https&sig=${encoded}`;
        expectRedacted(url, encoded);
        expect(redactSecrets(url)).toContain("sv=2022-11-02&ss=b");
        expectRedacted(`https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${sig.replace(/[+/]/g, "a")}`, sig.replace(/[+/]/g, "a"));
      }),
      RUNS,
    );
  });

  it("session cookies: Cookie / Set-Cookie headers, curl -b, well-known session cookie names", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("session", "sessionid", "sid", "_app_session", "connect.sid", "auth"),
        randomSecret(16, 40, "%._-"),
        fc.constantFrom("Cookie: ", "cookie: ", "Set-Cookie: ", "-H 'Cookie: "),
        (name, value, head) => {
          expectRedacted(`${head}theme=dark; ${name}=${value}; lang=en`, value);
          expectRedacted(`curl -b '${name}=${value}' https://app.example.com`, value);
        },
      ),
      RUNS,
    );
    fc.assert(
      fc.property(fc.constantFrom("PHPSESSID", "JSESSIONID", "ASP.NET_SessionId", "laravel_session", "sessionid", "__Secure-next-auth.session-token"), randomSecret(16, 40, "-_"), (name, value) => {
        expectRedacted(`the browser sent ${name}=${value} again`, value);
      }),
      RUNS,
    );
  });

  it("GitHub tokens and other known prefixes, in every context", () => {
    const gh = fc.tuple(fc.constantFrom("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), chars(ALNUM, 36, 40)).map(([p, s]) => p + s);
    const pat = chars(`${ALNUM}_`, 60, 82).map((s) => `github_pat_11${s}`);
    const others = fc.oneof(
      chars(`${ALNUM}-_`, 40, 60).map((s) => `sk-proj-${s}`),
      chars(`${ALNUM}-_`, 40, 60).map((s) => `sk-ant-api03-${s}`),
      chars(ALNUM, 24, 30).map((s) => `xoxb-1234567890-${s}`),
      chars(`${ALNUM}-_`, 35, 35).map((s) => `AIza${s}`),
      chars(`${ALNUM}-_`, 20, 30).map((s) => `glpat-${s}`),
      chars(ALNUM, 34, 34).map((s) => `hf_${s}`),
      chars(ALNUM, 36, 36).map((s) => `npm_${s}`),
      chars(ALNUM, 24, 30).map((s) => `sk_live_${s}`),
    );
    fc.assert(
      fc.property(fc.oneof(gh, pat, others), fc.constantFrom("%s", "GITHUB_TOKEN=%s", "Authorization: token %s", "https://x-access-token:%s@github.com/o/r.git", '{"token":"%s"}', "echo %s | gh auth login --with-token"), (token, shape) => {
        expectRedacted(shape.replace("%s", token), token);
      }),
      RUNS,
    );
  });

  it("machine-random values next to a secret-like name in prose", () => {
    fc.assert(
      fc.property(fc.constantFrom("the password is", "new passphrase:", "API key", "my token for staging is", "secret for prod ="), randomSecret(14, 30, "!#%*+_-"), (lead, value) => {
        // The family is bounded by entropy: only values that read as machine-random are taken from prose.
        fc.pre(entropyPerChar(value) >= 3.5);
        expectRedacted(`${lead} ${value}`, value);
      }),
      RUNS,
    );
  });
});
