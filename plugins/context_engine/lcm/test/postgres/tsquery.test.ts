import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ftsExpression, parseQuery } from "../../src/search/query.js";
import { rankSql, toTsQuery } from "../../src/store/postgres/tsquery.js";
import { POSTGRES_URL, postgresReachable } from "./server.js";

const reachable = await postgresReachable();

describe("FTS5 expression to tsquery", () => {
  it("binds every term as a parameter and keeps FTS5 precedence (AND over OR, NOT excludes)", () => {
    const q = toTsQuery(ftsExpression(parseQuery("payment AND timeout OR retr* -deploy")));
    expect(q.params).toEqual(["payment", "timeout", "'retr':*", "deploy"]);
    // AND groups first, then OR, and the exclusion applies to the whole: ((1 && 2) || 3) && !!4
    expect(q.sql.replace(/phraseto_tsquery\('english', \$(\d)\)|to_tsquery\('english', \$(\d)\)/g, "$1$2").replace(/[()]/g, "")).toBe("1 && 2 || 3 && !!4");
    expect(q.sql.indexOf("||")).toBeLessThan(q.sql.indexOf("!!"));
    expect(toTsQuery('body:("a ""quoted"" phrase")', 5)).toEqual({ sql: "(phraseto_tsquery('english', $5))", params: ['a "quoted" phrase'] });
    expect(() => toTsQuery("body:(\"a\"")).toThrow(/unbalanced/);
  });
});

describe.skipIf(!reachable)("tsquery on the real server", () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  afterAll(() => client.end());

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
      `SELECT i, ${rankSql("to_tsvector('english', d)", `(${q.sql})`)} AS score
       FROM unnest($1::text[]) WITH ORDINALITY AS t(d, i) WHERE to_tsvector('english', d) @@ (${q.sql}) ORDER BY score DESC, i`,
      [docs, ...q.params],
    );
    for (const r of rows) expect(r.score).toBeGreaterThan(0);
    return rows.map((r) => Number(r.i) - 1);
  }

  it("matches words (stemmed), phrases, prefixes, AND, OR and exclusions like the SQLite index", async () => {
    await client.connect();
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
