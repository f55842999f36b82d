import type Database from "better-sqlite3";
import type { Role } from "@context-engine/core";
import { cosine, fromBlob, norm, toBlob, TopK, type StoredVector, type VectorFilter, type VectorIndex, type VectorItem, type VectorMatch } from "./vectors.js";

const KIND = { message: 0, summary: 1 } as const;
const KIND_NAME = ["message", "summary"] as const;

/** Roles whose messages are embedded (system and developer prompts are instructions, not history to find). */
export const EMBEDDED_ROLES: readonly Role[] = ["user", "assistant", "tool"];

const TABLE = `
CREATE TABLE IF NOT EXISTS lcm_vectors (
  kind            INTEGER NOT NULL,
  item_id         INTEGER NOT NULL,
  model           TEXT NOT NULL,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  created_at      INTEGER NOT NULL,
  started_at      INTEGER NOT NULL,
  role            TEXT,
  dims            INTEGER NOT NULL,
  vec             BLOB NOT NULL,
  PRIMARY KEY (kind, item_id, model)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lcm_vectors_conversation ON lcm_vectors (conversation_id, model);
`;

/** Load sqlite-vec into the connection; null (and the exact scan in JavaScript) when the package or its binary is missing. */
export async function loadSqliteVec(db: Database.Database): Promise<string | null> {
  try {
    const mod = (await import("sqlite-vec")) as { load(db: unknown): void };
    mod.load(db);
    return (db.prepare("SELECT vec_version() AS v").get() as { v: string }).v;
  } catch {
    return null;
  }
}

/**
 * Vectors in the SQLite file, as float32 blobs in `lcm_vectors`. With sqlite-vec loaded the
 * cosine distance is computed in SQL (`vec_distance_cosine`); without it the conversation's
 * blobs are scanned in JavaScript. Both are exact: no approximate index is kept.
 */
export class SqliteVectorIndex implements VectorIndex {
  #vec: string | null = null;
  /** `useSqliteVec: false` keeps the exact scan in JavaScript (tests of the path taken when sqlite-vec cannot load). */
  constructor(
    private readonly db: Database.Database,
    private readonly options: { useSqliteVec?: boolean } = {},
  ) {}

  get method(): string {
    return this.#vec ? `sqlite-vec ${this.#vec} (exact)` : "exact scan (float32 blobs)";
  }

  async prepare(): Promise<void> {
    this.db.exec(TABLE);
    this.#vec = this.options.useSqliteVec === false ? null : await loadSqliteVec(this.db);
  }

  async dropOtherModels(model: string): Promise<number> {
    return this.db.prepare("DELETE FROM lcm_vectors WHERE model != ?").run(model).changes;
  }

  async pending(model: string, after: { message: number; summary: number }, limit: number): Promise<VectorItem[]> {
    const messages = this.db
      .prepare(
        `SELECT m.id, m.conversation_id AS c, m.created_at AS t, m.role FROM messages m
         WHERE m.id > ? AND m.role IN ('user', 'assistant', 'tool')
           AND NOT EXISTS (SELECT 1 FROM lcm_vectors v WHERE v.kind = 0 AND v.item_id = m.id AND v.model = ?)
         ORDER BY m.id LIMIT ?`,
      )
      .all(after.message, model, limit) as Array<{ id: number; c: number; t: number; role: Role }>;
    const summaries = this.db
      .prepare(
        `SELECT s.rowid AS id, s.conversation_id AS c, s.latest_at AS t, s.earliest_at AS t0 FROM summaries s
         WHERE s.rowid > ? AND NOT EXISTS (SELECT 1 FROM lcm_vectors v WHERE v.kind = 1 AND v.item_id = s.rowid AND v.model = ?)
         ORDER BY s.rowid LIMIT ?`,
      )
      .all(after.summary, model, limit) as Array<{ id: number; c: number; t: number; t0: number }>;
    return [
      ...messages.map((r) => ({ kind: "message" as const, id: r.id, conversationId: r.c, createdAt: r.t, startedAt: r.t, role: r.role })),
      ...summaries.map((r) => ({ kind: "summary" as const, id: r.id, conversationId: r.c, createdAt: r.t, startedAt: r.t0, role: null })),
    ];
  }

  async put(model: string, rows: readonly StoredVector[]): Promise<void> {
    // INSERT … SELECT: an item deleted meanwhile (its conversation forgotten) is skipped, not an error.
    const insert = this.db.prepare(
      `INSERT OR REPLACE INTO lcm_vectors (kind, item_id, model, conversation_id, created_at, started_at, role, dims, vec)
       SELECT ?, ?, ?, id, ?, ?, ?, ?, ? FROM conversations WHERE id = ?`,
    );
    this.db.transaction(() => {
      for (const r of rows) insert.run(KIND[r.kind], r.id, model, r.createdAt, r.startedAt, r.role, r.vector.length, toBlob(r.vector), r.conversationId);
    })();
  }

  async nearest(model: string, query: Float32Array, filter: VectorFilter, k: number): Promise<VectorMatch[]> {
    const { sql, params } = where(model, query.length, filter);
    if (this.#vec) {
      const rows = this.db
        .prepare(`SELECT kind, item_id AS id, conversation_id AS c, created_at AS t, vec_distance_cosine(vec, ?) AS d FROM lcm_vectors WHERE ${sql} ORDER BY d, item_id DESC LIMIT ?`)
        .all(toBlob(query), ...params, k) as Array<{ kind: 0 | 1; id: number; c: number; t: number; d: number | null }>;
      return rows.filter((r) => r.d !== null && Number.isFinite(r.d)).map((r) => ({ kind: KIND_NAME[r.kind], id: r.id, conversationId: r.c, createdAt: r.t, similarity: 1 - r.d! }));
    }
    const top = new TopK(k);
    const qn = norm(query);
    const iter = this.db.prepare(`SELECT kind, item_id AS id, conversation_id AS c, created_at AS t, vec FROM lcm_vectors WHERE ${sql}`).iterate(...params) as Iterable<{
      kind: 0 | 1;
      id: number;
      c: number;
      t: number;
      vec: Buffer;
    }>;
    for (const r of iter) top.offer({ kind: KIND_NAME[r.kind], id: r.id, conversationId: r.c, createdAt: r.t, similarity: cosine(query, qn, fromBlob(r.vec)) });
    return top.sorted;
  }

  async count(model: string): Promise<number> {
    return (this.db.prepare("SELECT count(*) AS n FROM lcm_vectors WHERE model = ?").get(model) as { n: number }).n;
  }
}

function where(model: string, dims: number, f: VectorFilter): { sql: string; params: unknown[] } {
  const parts = ["model = ?", "dims = ?"];
  const params: unknown[] = [model, dims];
  if (f.conversationId != null) {
    parts.push("conversation_id = ?");
    params.push(f.conversationId);
  }
  parts.push(`kind IN (${f.kinds.map((k) => KIND[k]).join(", ")})`);
  if (f.roles?.length) {
    // As lexical search: the role filter narrows messages; summaries have no role.
    parts.push(`(kind = 1 OR role IN (${f.roles.map(() => "?").join(", ")}))`);
    params.push(...f.roles);
  }
  if (f.since !== undefined) {
    parts.push("created_at >= ?");
    params.push(f.since);
  }
  if (f.before !== undefined) {
    parts.push("started_at < ?");
    params.push(f.before);
  }
  return { sql: parts.join(" AND "), params };
}
