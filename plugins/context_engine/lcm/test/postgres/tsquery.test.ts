import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ftsExpression, parseQuery } from "../../src/search/query.js";
import type { PostgresConnection } from "../../src/store/postgres/connect.js";
import { migratePostgres } from "../../src/store/postgres/migrations.js";
import { rankSql, toTsQuery } from "../../src/store/postgres/tsquery.js";
import { postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();

describe("FTS5 expression to tsquery", () => {
  it("binds every term as a parameter and keeps FTS5 precedence (AND over OR, NOT excludes)", () => {
    const q = toTsQuery(ftsExpression(parseQuery("payment AND timeout OR retr* -deploy")));
    expect(q.params).toEqual(["payment", "timeout", "'retr':*", "deploy"]);
    // AND groups first, then OR, and the exclusion applies to the whole: ((1 && 2) || 3) && !!4
    expect(q.sql.replace(/phraseto_tsquery\('lcm_search', lcm_fold\(\$(\d)\)\)|to_tsquery\('lcm_search', \$(\d)\)/g, "$1$2").replace(/[()]/g, "")).toBe("1 && 2 || 3 && !!4");
    expect(q.sql.indexOf("||")).toBeLessThan(q.sql.indexOf("!!"));
    expect(toTsQuery('body:("a ""quoted"" phrase")', 5)).toEqual({ sql: "(phraseto_tsquery('lcm_search', lcm_fold($5)))", params: ['a "quoted" phrase'] });
    // prefixes folded like indexed words; 1-2 letter ones unstemmed, as FTS5's porter leaves them
    expect(toTsQuery('body:("Résumé is"*)')).toEqual({ sql: "((to_tsquery('lcm_search', $1) && to_tsquery('simple', $2)))", params: ["'resume':*", "'is':*"] });
    expect(() => toTsQuery("body:(\"a\"")).toThrow(/unbalanced/);
  });
});

describe.skipIf(!reachable)("tsquery on the real server", () => {
  let schema: Awaited<ReturnType<typeof testSchema>>;
  let client: PostgresConnection["pool"];
  beforeAll(async () => {
    schema = await testSchema(1);
    const conn = await schema.open();
    await migratePostgres(conn);
    client = conn.pool;
  });
  afterAll(() => schema.drop());

  const docs = [
    "the payment service keeps timing out",
    "I will look at the retry logic of the payment service",
    "export const MAX_RETRY_COUNT = 3; // timeout after 30s",
    "deploy finished, payment fixed",
    "unrelated weather talk",
  ];
  async function matches(query: string): Promise<number[]> {
    const q = toTsQuery(ftsExpression(parseQuery(query)), 2);
    const { rows } = await client.query<{ i: number; score: number }>(
      `SELECT i, ${rankSql("to_tsvector('lcm_search', lcm_fold(d))", `(${q.sql})`)} AS score
       FROM unnest($1::text[]) WITH ORDINALITY AS t(d, i) WHERE to_tsvector('lcm_search', lcm_fold(d)) @@ (${q.sql}) ORDER BY score DESC, i`,
      [docs, ...q.params],
    );
    for (const r of rows) expect(r.score).toBeGreaterThan(0);
    return rows.map((r) => Number(r.i) - 1);
  }

  it("matches words (stemmed), phrases, prefixes, AND, OR and exclusions like the SQLite index", async () => {
    expect((await matches("timeout")).sort()).toEqual([2]);
    expect((await matches("timing")).sort()).toEqual([0]);
    expect((await matches('"payment service"')).sort()).toEqual([0, 1]);
    expect((await matches("payment -deploy")).sort()).toEqual([0, 1]);
    expect((await matches("payment AND retry")).sort()).toEqual([1]);
    expect((await matches("weather OR deploy")).sort()).toEqual([3, 4]);
    expect((await matches("retr*")).sort()).toEqual([1, 2]);
    expect((await matches("MAX_RETRY_COUNT")).sort()).toEqual([2]);
    // more matched terms rank higher
    expect((await matches("payment service"))[0]).toBe(0);
  });
});
