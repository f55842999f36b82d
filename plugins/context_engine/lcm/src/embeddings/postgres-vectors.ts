import type { Role } from "@context-engine/core";
import { cosine, fromBlob, norm, toBlob, TopK, type StoredVector, type VectorFilter, type VectorIndex, type VectorItem, type VectorMatch } from "./vectors.js";

/** What this needs of a `pg` pool whose search_path is the LCM schema. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount?: number | null }>;
}

const KIND = { message: 0, summary: 1 } as const;
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
 * no approximate index is built). That second path is NOT tested on the machine this was built
 * on (its PostgreSQL 15 has no pgvector package).
 */
export class PostgresVectorIndex implements VectorIndex {
  #pgvector = false;
  constructor(private readonly pool: Queryable) {}

  get method(): string {
    return this.#pgvector ? "pgvector (exact, <=>)" : "exact scan (PostgreSQL bytea)";
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
      const { rows } = await this.pool.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
      if (rows.length === 0) return false;
      await this.pool.query("ALTER TABLE lcm_vectors ADD COLUMN IF NOT EXISTS pgv vector");
      return true;
    } catch {
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
    const cols = ["kind", "item_id", "conversation_id", "created_at", "started_at", "role", "dims", "vec", ...(this.#pgvector ? ["pgtxt"] : [])];
    // One statement per batch; an item whose conversation was deleted meanwhile is skipped by the join.
    const types = ["smallint", "bigint", "bigint", "bigint", "bigint", "text", "integer", "bytea", "text"];
    const values = rows.map((_, i) => `(${cols.map((_, j) => `$${i * cols.length + j + 2}::${types[j]}`).join(", ")})`).join(", ");
    const params: unknown[] = [model];
    for (const r of rows) {
      params.push(KIND[r.kind], r.id, r.conversationId, r.createdAt, r.startedAt, r.role, r.vector.length, toBlob(r.vector));
      if (this.#pgvector) params.push(r.vector.length ? `[${Array.from(r.vector).join(",")}]` : null);
    }
    const pgv = this.#pgvector ? ", pgv" : "";
    const pgvValue = this.#pgvector ? ", x.pgtxt::vector" : "";
    await this.pool.query(
      `INSERT INTO lcm_vectors (kind, item_id, model, conversation_id, created_at, started_at, role, dims, vec${pgv})
       SELECT x.kind, x.item_id, $1, x.conversation_id, x.created_at, x.started_at, x.role, x.dims, x.vec${pgvValue}
       FROM (VALUES ${values}) AS x (${cols.join(", ")}) JOIN conversations c ON c.id = x.conversation_id
       ON CONFLICT (kind, item_id, model) DO NOTHING`,
      params,
    );
  }

  async nearest(model: string, query: Float32Array, filter: VectorFilter, k: number): Promise<VectorMatch[]> {
    const { sql, params } = where(model, query.length, filter);
    if (this.#pgvector) {
      const { rows } = await this.pool.query(
        `SELECT kind, item_id AS id, conversation_id AS c, created_at AS t, pgv <=> $${params.length + 1}::vector AS d
         FROM lcm_vectors WHERE ${sql} AND pgv IS NOT NULL ORDER BY d, item_id DESC LIMIT $${params.length + 2}`,
        [...params, `[${Array.from(query).join(",")}]`, k],
      );
      return rows.map((r) => ({ kind: KIND_NAME[Number(r.kind) as 0 | 1], id: Number(r.id), conversationId: Number(r.c), createdAt: Number(r.t), similarity: 1 - Number(r.d) }));
    }
    const { rows } = await this.pool.query(`SELECT kind, item_id AS id, conversation_id AS c, created_at AS t, vec FROM lcm_vectors WHERE ${sql}`, params);
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

function where(model: string, dims: number, f: VectorFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [model, dims];
  const parts = ["model = $1", "dims = $2"];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.conversationId != null) parts.push(`conversation_id = ${p(f.conversationId)}`);
  parts.push(`kind IN (${f.kinds.map((k) => KIND[k]).join(", ")})`);
  if (f.roles?.length) parts.push(`(kind = 1 OR role = ANY(${p([...f.roles])}::text[]))`);
  if (f.since !== undefined) parts.push(`created_at >= ${p(f.since)}`);
  if (f.before !== undefined) parts.push(`started_at < ${p(f.before)}`);
  return { sql: parts.join(" AND "), params };
}
