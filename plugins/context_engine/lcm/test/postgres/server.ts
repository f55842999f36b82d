import { randomBytes } from "node:crypto";
import pg from "pg";
import { connectPostgres, type PostgresConnection } from "../../src/store/postgres/connect.js";

/** The test server: `LCM_TEST_POSTGRES_URL`, else the local one CI starts (trust auth, database `test`). */
export const POSTGRES_URL = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Whether the server answers; when not, the PostgreSQL tests are skipped with a visible notice. */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    console.warn(`[lcm] PostgreSQL tests SKIPPED: no server at ${POSTGRES_URL} (${error instanceof Error ? error.message : String(error)})`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A random schema name per test run, so concurrent runs never collide. */
export function randomSchema(): string {
  return `lcm_test_${randomBytes(6).toString("hex")}`;
}

/** Connections on one fresh schema; `drop()` closes them and drops the schema. */
export async function testSchema(poolSize = 4): Promise<{ schema: string; open(): Promise<PostgresConnection>; drop(): Promise<void> }> {
  const schema = randomSchema();
  const opened: PostgresConnection[] = [];
  return {
    schema,
    async open() {
      const c = await connectPostgres({ url: POSTGRES_URL, schema, poolSize });
      opened.push(c);
      return c;
    },
    async drop() {
      for (const c of opened.splice(0)) await c.close();
      await dropSchema(schema);
    },
  };
}

/** Drop a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.end();
  }
}
