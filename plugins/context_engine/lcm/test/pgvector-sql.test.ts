import { describe, expect, it } from "vitest";
import { LcmEngine } from "../src/index.js";
import { insertVectors, nearestByPgvector, scanInScope, vectorLiteral } from "../src/embeddings/postgres-vector-sql.js";
import { PostgresVectorIndex } from "../src/embeddings/postgres-vectors.js";
import { PostgresLcmStore } from "../src/store/postgres/store.js";
import { toyEmbed } from "./embeddings/toy-embedder.js";
import { tempDir } from "./engine-helpers.js";
import { dropSchema, POSTGRES_URL, postgresReachable, randomSchema } from "./postgres/server.js";

/**
 * pgvector is not installed on the machine this was built on, so its path is checked two ways: the
 * statements it would send (here, as text and parameters), and those statements run by PostgreSQL against
 * a stand-in of the extension (a `vector` domain over text and a SQL `<=>` computing cosine distance).
 * Neither proves the real extension accepts them; the README says the path is untested.
 */
const placeholders = (sql: string) => new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
const item = (id: number, vector: number[]) => ({ kind: "message" as const, id, conversationId: 7, createdAt: 1000 + id, startedAt: 1000 + id, role: "user" as const, vector: Float32Array.from(vector) });

describe("pgvector statements (built without the extension)", () => {
  it("an insert fills the pgvector column from pgvector's text form; an empty vector gets NULL there", () => {
    const { sql, params } = insertVectors("m", [item(1, [0.5, -1]), item(2, [])], true);
    expect(sql).toContain("vec, pgv)");
    expect(sql).toContain("x.pgtxt::vector");
    expect(params).toHaveLength(1 + 2 * 9);
    expect(params[9]).toBe("[0.5,-1]");
    expect(params[18]).toBeNull();
    expect(placeholders(sql)).toEqual(new Set(params.map((_, i) => i + 1)));
    const plain = insertVectors("m", [item(1, [0.5, -1])], false);
    expect(plain.sql).not.toMatch(/pgv|::vector/);
    expect(plain.params).toHaveLength(1 + 8);
  });

  it("a search asks the server for cosine distance within the same scope as the exact scan", () => {
    const filter = { conversationId: 7, kinds: ["message", "summary"] as const, roles: ["user" as const], since: 10, before: 20 };
    const q = Float32Array.from([1, 0, 0.25]);
    const pg = nearestByPgvector("m", q, filter, 5);
    const scan = scanInScope("m", 3, filter);
    expect(pg.sql).toMatch(/pgv <=> \$7::vector AS d/);
    expect(pg.sql).toMatch(/ORDER BY d, item_id DESC LIMIT \$8/);
    expect(pg.params).toEqual([...scan.params, "[1,0,0.25]", 5]);
    expect(pg.sql).toContain(scan.sql.slice(scan.sql.indexOf("WHERE ")));
    expect(placeholders(pg.sql)).toEqual(new Set(pg.params.map((_, i) => i + 1)));
    expect(vectorLiteral(new Float32Array())).toBe("[]");
  });
});

const pgUp = await postgresReachable();

describe.skipIf(!pgUp)("pgvector statements run by PostgreSQL against a stand-in of the extension", () => {
  it("rank the same neighbours as the exact scan; without the extension the index says it scans", async () => {
    const t = tempDir();
    const schema = randomSchema();
    const engine = new LcmEngine({ dataDir: t.dir, contextLength: 100_000, config: { store: POSTGRES_URL, schema, pool_size: 2 } });
    try {
      const texts = ["We adopted a puppy named Oscar.", "The report is due Friday.", "My brother fixed the sink.", "A novel about sailors."];
      await engine.onTurnComplete(texts.map((content, i) => ({ role: i % 2 ? "assistant" : "user", content })), null, { sessionId: "s" });
      const pool = PostgresLcmStore.poolOf((await engine.openStore()) as PostgresLcmStore);
      const scan = new PostgresVectorIndex(pool);
      await scan.prepare();
      expect(scan.method).toBe("exact scan (PostgreSQL bytea)");
      expect(scan.notice).toMatch(/pgvector .* not installed .* exact scan/);

      // The stand-in: what the statements need of pgvector (a `vector` type taking '[x,y]' text and `<=>`).
      await pool.query(`CREATE DOMAIN "${schema}".vector AS text`);
      await pool.query(`CREATE FUNCTION "${schema}".standin_cosine_distance(a text, b text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
        SELECT 1 - sum(x * y) / NULLIF(sqrt(sum(x * x)) * sqrt(sum(y * y)), 0)
        FROM unnest(translate(a, '[]', '{}')::float8[], translate(b, '[]', '{}')::float8[]) AS t (x, y) $$`);
      await pool.query(`CREATE OPERATOR "${schema}".<=> (LEFTARG = text, RIGHTARG = text, FUNCTION = "${schema}".standin_cosine_distance)`);
      const pgv = new PostgresVectorIndex(pool, { usePgvector: true });
      await pgv.prepare();
      expect(pgv.method).toBe("pgvector (exact, <=>)");
      expect(pgv.notice).toBeNull();

      const items = await pgv.pending("m", { message: 0, summary: 0 }, 100);
      expect(items).toHaveLength(4);
      await pgv.put("m", items.map((it, i) => ({ ...it, vector: Float32Array.from(toyEmbed(texts[i]!)) })));
      const q = Float32Array.from(toyEmbed("adopt a dog"));
      const filter = { conversationId: items[0]!.conversationId, kinds: ["message"] as const };
      const a = await pgv.nearest("m", q, filter, 3);
      const b = await scan.nearest("m", q, filter, 3);
      expect(a.map((m) => m.id)).toEqual(b.map((m) => m.id));
      a.forEach((m, i) => expect(m.similarity).toBeCloseTo(b[i]!.similarity, 5));
      expect(a[0]!.id).toBe(items[0]!.id);
      expect(await pgv.nearest("m", q, { ...filter, roles: ["assistant"] }, 10)).toHaveLength(2);
    } finally {
      await engine.close();
      t.cleanup();
      await dropSchema(schema);
    }
  });
});
