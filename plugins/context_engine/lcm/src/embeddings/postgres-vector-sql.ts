import { toBlob, type StoredVector, type VectorFilter } from "./vectors.js";

/**
 * The statements the PostgreSQL vector index sends, built here (pure functions) so a unit test can check
 * them, the pgvector ones included: that path cannot run on a server without the `vector` extension.
 */

export const KIND = { message: 0, summary: 1 } as const;

export interface Statement {
  sql: string;
  params: unknown[];
}

/** Whether pgvector is installed in the database (`CREATE EXTENSION vector` was run). */
export const DETECT_PGVECTOR = "SELECT extversion FROM pg_extension WHERE extname = 'vector'";
/** The column pgvector ranks by, added beside the portable bytea one. */
export const ADD_PGVECTOR_COLUMN = "ALTER TABLE lcm_vectors ADD COLUMN IF NOT EXISTS pgv vector";

/** pgvector's text form of a vector: `[0.1,0.2,…]`. */
export function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(",")}]`;
}

/** One INSERT for a batch; an item whose conversation was deleted meanwhile is skipped by the join. */
export function insertVectors(model: string, rows: readonly StoredVector[], pgvector: boolean): Statement {
  const cols = ["kind", "item_id", "conversation_id", "created_at", "started_at", "role", "dims", "vec", ...(pgvector ? ["pgtxt"] : [])];
  const types = ["smallint", "bigint", "bigint", "bigint", "bigint", "text", "integer", "bytea", "text"];
  const values = rows.map((_, i) => `(${cols.map((_, j) => `$${i * cols.length + j + 2}::${types[j]}`).join(", ")})`).join(", ");
  const params: unknown[] = [model];
  for (const r of rows) {
    params.push(KIND[r.kind], r.id, r.conversationId, r.createdAt, r.startedAt, r.role, r.vector.length, toBlob(r.vector));
    // An empty vector (an item with nothing to embed) has no pgvector value.
    if (pgvector) params.push(r.vector.length ? vectorLiteral(r.vector) : null);
  }
  const pgv = pgvector ? ", pgv" : "";
  const pgvValue = pgvector ? ", x.pgtxt::vector" : "";
  return {
    sql: `INSERT INTO lcm_vectors (kind, item_id, model, conversation_id, created_at, started_at, role, dims, vec${pgv})
       SELECT x.kind, x.item_id, $1, x.conversation_id, x.created_at, x.started_at, x.role, x.dims, x.vec${pgvValue}
       FROM (VALUES ${values}) AS x (${cols.join(", ")}) JOIN conversations c ON c.id = x.conversation_id
       ON CONFLICT (kind, item_id, model) DO NOTHING`,
    params,
  };
}

/** The rows in scope: same model and size, the filter's conversation, kinds, roles and times. */
export function vectorScope(model: string, dims: number, f: VectorFilter): Statement {
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

/** pgvector: the server ranks by cosine distance (`<=>`, exact: no approximate index), nearest first, newer first on ties. */
export function nearestByPgvector(model: string, query: Float32Array, filter: VectorFilter, k: number): Statement {
  const scope = vectorScope(model, query.length, filter);
  const n = scope.params.length;
  return {
    sql: `SELECT kind, item_id AS id, conversation_id AS c, created_at AS t, pgv <=> $${n + 1}::vector AS d
         FROM lcm_vectors WHERE ${scope.sql} AND pgv IS NOT NULL ORDER BY d, item_id DESC LIMIT $${n + 2}`,
    params: [...scope.params, vectorLiteral(query), k],
  };
}

/** Without pgvector: the rows in scope, ranked in the engine process. */
export function scanInScope(model: string, dims: number, filter: VectorFilter): Statement {
  const scope = vectorScope(model, dims, filter);
  return { sql: `SELECT kind, item_id AS id, conversation_id AS c, created_at AS t, vec FROM lcm_vectors WHERE ${scope.sql}`, params: scope.params };
}
