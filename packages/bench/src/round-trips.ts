import { createRequire } from "node:module";

/**
 * Round trips to PostgreSQL, counted in the bench (never in the store): every
 * `query` of a `pg` client is one request the server answers (the pool's
 * `query` goes through a client's). The `pg` module is the one LCM loads,
 * resolved from LCM's own package, so the patched prototype is the one its
 * pool uses.
 */
export interface RoundTripCounter {
  /** Queries sent so far by every client of the process. */
  count(): number;
  /** The text of the queries sent so far (the first 80 characters of each), from `trace(true)` on. */
  trace(on: boolean): string[];
}

let installed: RoundTripCounter | null = null;

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
interface PgModule {
  Client: { new (options: { connectionString: string }): PgClient; prototype: { query: (...args: unknown[]) => unknown } };
}

/** The `pg` module LCM itself loads (resolved from LCM's package). */
function lcmPg(): PgModule {
  const fromLcm = createRequire(createRequire(import.meta.url).resolve("@context-engine/lcm/package.json"));
  return fromLcm("pg") as PgModule;
}

export function countPgRoundTrips(): RoundTripCounter {
  if (installed) return installed;
  const pg = lcmPg();
  const proto = pg.Client.prototype;
  const original = proto.query;
  let n = 0;
  let traced: string[] | null = null;
  proto.query = function countedQuery(this: unknown, ...args: unknown[]) {
    n++;
    if (traced) {
      const q = args[0] as string | { text?: string };
      traced.push((typeof q === "string" ? q : (q?.text ?? "?")).replace(/\s+/g, " ").slice(0, 80));
    }
    return original.apply(this, args);
  };
  installed = {
    count: () => n,
    trace: (on) => {
      const out = traced ?? [];
      traced = on ? [] : null;
      return out;
    },
  };
  return installed;
}

/** The PostgreSQL URL of a bench run (`BENCH_PG_URL`; the machine's local server by default). */
export const DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/test";

/** A schema name of this run's own (the database is shared with other jobs). */
export function benchSchema(label: string): string {
  return `bench_${label}_${process.pid}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

/** Drop a schema the bench created (and everything in it). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  if (!/^bench_[a-z0-9_]+$/.test(schema)) throw new Error(`refusing to drop schema "${schema}": not one of the bench's own`);
  const client = new (lcmPg().Client)({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
