import { userInfo } from "node:os";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/index.js";
import { withDefaultUser } from "../../src/store/postgres/url.js";
import { POSTGRES_URL, postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();

async function schemaExists(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

const dropped: string[] = [];
afterEach(async () => {
  if (!reachable) return;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  for (const s of dropped.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

describe("a URL without a user name connects as the operating-system user, as libpq does", () => {
  const me = userInfo().username;
  it("adds the OS user only when neither the URL, a user= parameter, PGUSER nor USER names one", () => {
    expect(withDefaultUser("postgres://127.0.0.1:5432/test", {})).toBe(`postgres://127.0.0.1:5432/test?user=${encodeURIComponent(me)}`);
    expect(withDefaultUser("postgres:///test?host=/run/postgresql", {})).toBe(`postgres:///test?host=/run/postgresql&user=${encodeURIComponent(me)}`);
    for (const [url, env] of [
      ["postgres://127.0.0.1/test", { USER: "someone" }],
      ["postgres://127.0.0.1/test", { PGUSER: "someone" }],
      ["postgres://ada@127.0.0.1/test", {}],
      ["postgres://127.0.0.1/test?user=ada", {}],
    ] as const) {
      expect(withDefaultUser(url, env)).toBe(url);
    }
  });

  it.skipIf(!reachable)("opens a store with USER unset", async () => {
    const saved = { USER: process.env.USER, PGUSER: process.env.PGUSER };
    delete process.env.USER;
    delete process.env.PGUSER;
    const schema = randomSchema();
    dropped.push(schema);
    const url = new URL(POSTGRES_URL);
    url.username = "";
    try {
      const store = await openPostgresStore({ url: url.toString(), schema }).catch((error: Error) => error);
      // Where the OS user has no role, the server says so; the driver never fails for want of a name.
      if (store instanceof Error) expect(store.message).toMatch(new RegExp(`role "${me}" does not exist`));
      else await store.close();
      if (store instanceof Error) expect(store.message).not.toMatch(/no PostgreSQL user name/);
    } finally {
      Object.assign(process.env, Object.fromEntries(Object.entries(saved).filter(([, v]) => v !== undefined)));
    }
  });
});

describe.skipIf(!reachable)("a reader never creates a schema", () => {
  it("refuses a missing schema with LCM_NO_SCHEMA and leaves the database as it was", async () => {
    const schema = randomSchema();
    dropped.push(schema);
    const error = await openPostgresStore({ url: POSTGRES_URL, schema, createSchema: false }).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe("LCM_NO_SCHEMA");
    expect(error?.message).toMatch(new RegExp(`no LCM store in schema "${schema}"`));
    expect(await schemaExists(schema)).toBe(false);
    const writer = await openPostgresStore({ url: POSTGRES_URL, schema });
    await writer.close();
    const reader = await openPostgresStore({ url: POSTGRES_URL, schema, createSchema: false });
    expect(await reader.listConversations()).toEqual([]);
    await reader.close();
  });
});
