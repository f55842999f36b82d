import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/open.js";
import { errorWrapper } from "../../src/store/postgres/errors.js";
import { parsePostgresOptions } from "../../src/store/postgres/options.js";
import { connectionSecrets, describeConnection, scrubConnectionSecrets } from "../../src/store/postgres/url.js";
import { adminClient, dropSchema } from "./faults-support.js";
import { postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();
const PASSWORD = "s3cret-Pa55/word%21";
const ENCODED = encodeURIComponent(PASSWORD);

/** Every way an error may be shown: message, stack, inspect (own fields and cause), JSON. */
function everyRendering(error: unknown): string {
  return [String(error), (error as Error)?.stack ?? "", inspect(error, { depth: 5 }), JSON.stringify(error, Object.getOwnPropertyNames(error ?? {}))].join("\n");
}

function expectNoPassword(text: string): void {
  for (const form of [PASSWORD, ENCODED, "s3cret"]) expect(text).not.toContain(form);
}

async function openError(url: string, schema = randomSchema()): Promise<unknown> {
  try {
    const store = await openPostgresStore({ url, schema, connectTimeoutMs: 3000 });
    await store.close();
  } catch (error) {
    return error;
  }
  throw new Error("the store opened");
}

describe("describeConnection", () => {
  it("shows user, host, port and database, never the password", () => {
    expect(describeConnection(`postgres://alice:${ENCODED}@db.example:6543/app?sslmode=require&password=${ENCODED}`)).toBe("postgres://alice@db.example:6543/app");
    expect(describeConnection("postgresql://db.example/app")).toBe("postgresql://db.example/app");
    expect(describeConnection("postgres://alice:p@ss:word/@[bad")).toBe("postgres://(unparsable URL)");
  });

  it("never contains the password, whatever it is (generated)", () => {
    const password = fc.string({ minLength: 1, maxLength: 24, unit: "grapheme" }).filter((p) => p.trim().length > 0 && !p.includes("*"));
    fc.assert(
      fc.property(password, fc.constantFrom("user", "a.b-c"), (pass, user) => {
        const url = `postgres://${user}:${encodeURIComponent(pass)}@127.0.0.1:5432/test`;
        const shown = describeConnection(url);
        expect(shown).toBe(`postgres://${user}@127.0.0.1:5432/test`);
        const message = `could not connect to ${url} as ${user} with ${pass}`;
        const scrubbed = scrubConnectionSecrets(message, connectionSecrets(url));
        expect(scrubbed).not.toContain(pass);
        expect(scrubbed).not.toContain(encodeURIComponent(pass));
      }),
    );
  });

  it("wraps a driver error that quotes the URL (even a raw, unencoded password)", () => {
    const url = "postgres://bob:pa:ss@word@h/db";
    const wrap = errorWrapper(parsePostgresOptions({ url }));
    const error = wrap(new Error(`cannot parse ${url} (password pa:ss@word)`)) as Error;
    expect(error.message).not.toContain("pa:ss@word");
    expect(error.message).toMatch(/^PostgreSQL store \(postgres:\/\/bob@h\/db, schema lcm\): /);
  });
});

describe.skipIf(!reachable)("PostgreSQL store errors never show the URL's password", () => {
  it("a refused connection", async () => {
    const error = await openError(`postgres://postgres:${ENCODED}@127.0.0.1:1/test`);
    expect(error).toMatchObject({ name: "PostgresStoreError", kind: "connection" });
    expect((error as Error).message).toMatch(/postgres:\/\/postgres@127\.0\.0\.1:1\/test.*ECONNREFUSED/);
    expectNoPassword(everyRendering(error));
  });

  it("a missing database", async () => {
    const error = await openError(`postgres://postgres:${ENCODED}@127.0.0.1:5432/lcm_no_such_db_${Date.now()}`);
    expect(error).toMatchObject({ name: "PostgresStoreError", kind: "connection", code: "3D000" });
    expect((error as Error).message).toMatch(/does not exist/);
    expectNoPassword(everyRendering(error));
  });

  it("a schema name that is refused by the options or by the server", async () => {
    const invalid = await openError(`postgres://postgres:${ENCODED}@127.0.0.1:5432/test`, "Bad-Schema; drop");
    expect((invalid as Error).message).toMatch(/schema: a lower-case identifier/);
    expectNoPassword(everyRendering(invalid));
    const reserved = await openError(`postgres://postgres:${ENCODED}@127.0.0.1:5432/test`, "pg_lcm_reserved");
    expect(reserved).toMatchObject({ name: "PostgresStoreError" });
    expect((reserved as Error).message).toMatch(/pg_lcm_reserved/);
    expectNoPassword(everyRendering(reserved));
  });

  it("a store opened with a password shows none in its path, stats or errors", async () => {
    const schema = randomSchema();
    const store = await openPostgresStore({ url: `postgres://postgres:${ENCODED}@127.0.0.1:5432/test`, schema });
    try {
      expectNoPassword(store.path);
      expectNoPassword(JSON.stringify(await store.stats()));
      const error = await Promise.resolve(store.getMessages(-1, { limit: -5 })).then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({ name: "PostgresStoreError", kind: "query" });
      expectNoPassword(everyRendering(error));
    } finally {
      await store.close();
      const admin = await adminClient();
      await dropSchema(admin, schema);
      await admin.end();
    }
  });
});
