import type { Role } from "@context-engine/core";
import { ADD_PGVECTOR_COLUMN, DETECT_PGVECTOR, insertVectors, nearestByPgvector, scanInScope } from "./postgres-vector-sql.js";
import { cosine, fromBlob, norm, TopK, type StoredVector, type VectorFilter, type VectorIndex, type VectorItem, type VectorMatch } from "./vectors.js";

/** What this needs of a `pg` pool whose search_path is the LCM schema. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount?: number | null }>;
}

const KIND_NAME = ["message", "summary"] as const;

const TABLE = `
CREATE TABLE IF NOT EXISTS lcm_vectors (
  kind            smallint NOT NULL,
  item_id         bigint NOT NULL,
  model           text NOT NULL,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  created_at      bigint NOT NULL,
  started_at      bigint NOT NULL,
  role            text,
  dims            integer NOT NULL,
  vec             bytea NOT NULL,
  PRIMARY KEY (kind, item_id, model)
);
CREATE INDEX IF NOT EXISTS lcm_vectors_conversation ON lcm_vectors (conversation_id, model);
`;

/**
 * Vectors in the PostgreSQL schema, in `lcm_vectors` beside the messages (a table of its own,
 * created on first use; not one of the store's numbered migrations). Float32 vectors are kept
 * as bytea and ranked by an exact scan of the rows in scope in this process. When the pgvector
 * extension is installed in the database, a `pgv vector` column is filled too and the distance
 * is computed by the server (`<=>`, still exact: vectors of several sizes share the column, so
 * no approximate index is built). That second path is NOT tested against pgvector on the machine this
 * was built on (its PostgreSQL 15 has no pgvector package): its statements are checked by a unit test and
 * run against a stand-in of the extension (test/pgvector-sql.test.ts). Without the extension the index says
 * so in `notice` (logged once, shown in the status).
 */
export class PostgresVectorIndex implements VectorIndex {
  #pgvector = false;
  #notice: string | null = null;
  /** `usePgvector`: skip the detection and use the pgvector statements (tests, with a stand-in of the extension). */
  constructor(
    private readonly pool: Queryable,
    private readonly options: { usePgvector?: boolean } = {},
  ) {}

  get method(): string {
    return this.#pgvector ? "pgvector (exact, <=>)" : "exact scan (PostgreSQL bytea)";
  }

  get notice(): string | null {
    return this.#notice;
  }

  async prepare(): Promise<void> {
    // Two processes may create it at once: the loser's error is harmless when the table then exists.
    try {
      await this.pool.query(TABLE);
    } catch (error) {
      const { rows } = await this.pool.query("SELECT to_regclass('lcm_vectors') IS NOT NULL AS ok");
      if (!rows[0]?.ok) throw error;
    }
    this.#pgvector = await this.#enablePgvector();
  }

  async #enablePgvector(): Promise<boolean> {
    try {
      if (!this.options.usePgvector) {
        const { rows } = await this.pool.query(DETECT_PGVECTOR);
        if (rows.length === 0) {
          this.#notice = "pgvector (the `vector` extension) is not installed in this database: vectors are ranked by an exact scan in the engine process";
          return false;
        }
      }
      await this.pool.query(ADD_PGVECTOR_COLUMN);
      return true;
    } catch (error) {
      this.#notice = `pgvector could not be used (${error instanceof Error ? error.message : String(error)}): vectors are ranked by an exact scan in the engine process`;
      return false;
    }
  }

  async dropOtherModels(model: string): Promise<number> {
    return (await this.pool.query("DELETE FROM lcm_vectors WHERE model <> $1", [model])).rowCount ?? 0;
  }

  async pending(model: string, after: { message: number; summary: number }, limit: number): Promise<VectorItem[]> {
    const messages = await this.pool.query(
      `SELECT m.id, m.conversation_id AS c, m.created_at AS t, m.role FROM messages m
       WHERE m.id > $1 AND m.role IN ('user', 'assistant', 'tool')
         AND NOT EXISTS (SELECT 1 FROM lcm_vectors v WHERE v.kind = 0 AND v.item_id = m.id AND v.model = $2)
       ORDER BY m.id LIMIT $3`,
      [after.message, model, limit],
    );
    const summaries = await this.pool.query(
      `SELECT s.rid AS id, s.conversation_id AS c, s.latest_at AS t, s.earliest_at AS t0 FROM summaries s
       WHERE s.rid > $1 AND NOT EXISTS (SELECT 1 FROM lcm_vectors v WHERE v.kind = 1 AND v.item_id = s.rid AND v.model = $2)
       ORDER BY s.rid LIMIT $3`,
      [after.summary, model, limit],
    );
    return [
      ...messages.rows.map((r) => ({ kind: "message" as const, id: Number(r.id), conversationId: Number(r.c), createdAt: Number(r.t), startedAt: Number(r.t), role: r.role as Role })),
      ...summaries.rows.map((r) => ({ kind: "summary" as const, id: Number(r.id), conversationId: Number(r.c), createdAt: Number(r.t), startedAt: Number(r.t0), role: null })),
    ];
  }

  async put(model: string, rows: readonly StoredVector[]): Promise<void> {
    if (rows.length === 0) return;
    const { sql, params } = insertVectors(model, rows, this.#pgvector);
    await this.pool.query(sql, params);
  }

  async nearest(model: string, query: Float32Array, filter: VectorFilter, k: number): Promise<VectorMatch[]> {
    if (this.#pgvector) {
      const { sql, params } = nearestByPgvector(model, query, filter, k);
      const { rows } = await this.pool.query(sql, params);
      return rows.map((r) => ({ kind: KIND_NAME[Number(r.kind) as 0 | 1], id: Number(r.id), conversationId: Number(r.c), createdAt: Number(r.t), similarity: 1 - Number(r.d) }));
    }
    const { sql, params } = scanInScope(model, query.length, filter);
    const { rows } = await this.pool.query(sql, params);
    const top = new TopK(k);
    const qn = norm(query);
    for (const r of rows) {
      top.offer({ kind: KIND_NAME[Number(r.kind) as 0 | 1], id: Number(r.id), conversationId: Number(r.c), createdAt: Number(r.t), similarity: cosine(query, qn, fromBlob(r.vec as Buffer)) });
    }
    return top.sorted;
  }

  async count(model: string): Promise<number> {
    const { rows } = await this.pool.query("SELECT count(*)::int AS n FROM lcm_vectors WHERE model = $1", [model]);
    return Number(rows[0]?.n ?? 0);
  }
}
