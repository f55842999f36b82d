import { MATCHED_IDS, matchedCte, MESSAGE_VECTOR } from "./message-vector.js";
import { rankSql } from "./tsquery.js";

/**
 * Matches of a ranked search that get their exact score (`rankSql`, which reads positions): the store keeps no
 * per-row vector (message-vector.ts), so each one is computed from the body, about 0.1 ms a row. Past this many
 * matches the pool is the matches holding the most distinct query terms (newest first among equals).
 */
export const RANKED_POOL = 50;

/**
 * The statement ranking every match of `q` (a tsquery SQL) under the filter `where`, page by `limit` / `offset`
 * placeholders. Matches come from the GIN index; the distinct terms a match holds (`terms`, position-free
 * tsqueries) from the index too, with no vector computed. The best RANKED_POOL by that count are scored exactly;
 * with no more matches than that the ranking is the exact one (`ts_rank_cd` over every match, as before). A match
 * outside the pool scores what its distinct terms alone give an OR query (each counted once: 10·w/(w+1) with
 * w = 0.1 per term), capped at the pool's lowest score, so scores never rise down the list and pages stay
 * consistent (the pool does not depend on the page). On LoCoMo this found evidence as often as the exact ranking
 * (packages/bench/README.md, "without the stored message vector").
 */
export function rankedMatchesSql(q: string, terms: readonly string[], where: string, limit: string, offset: string): string {
  const held = terms.length ? terms.map((t) => `SELECT m.id FROM messages m WHERE ${MESSAGE_VECTOR} @@ ${t}`).join(" UNION ALL ") : "SELECT NULL::bigint AS id WHERE FALSE";
  // With no more matches than the pool (`few`), `counted` is never read, so the per-term index scans never run.
  return `WITH ${matchedCte(q)},
    hits AS MATERIALIZED (SELECT m.id, m.created_at FROM messages m WHERE ${MATCHED_IDS}${where}),
    few AS MATERIALIZED (SELECT count(*) <= ${RANKED_POOL} AS yes FROM hits),
    held AS MATERIALIZED (${held}),
    counted AS MATERIALIZED (
      SELECT h.id, h.created_at, count(t.id) AS n, row_number() OVER (ORDER BY count(t.id) DESC, h.id DESC) AS r
      FROM hits h LEFT JOIN held t ON t.id = h.id GROUP BY h.id, h.created_at),
    pool AS MATERIALIZED (
      SELECT h.id, h.created_at FROM hits h WHERE (SELECT yes FROM few)
      UNION ALL
      SELECT c.id, c.created_at FROM counted c WHERE NOT (SELECT yes FROM few) AND c.r <= ${RANKED_POOL}),
    pooled AS MATERIALIZED (SELECT p.id, p.created_at, (SELECT ${rankSql(MESSAGE_VECTOR, q)} FROM messages m WHERE m.id = p.id) AS score FROM pool p)
  SELECT x.rowid, x.score, x.created_at FROM (
    SELECT id AS rowid, score, created_at FROM pooled
    UNION ALL
    SELECT c.id, LEAST((10 * (0.1 * c.n) / (0.1 * c.n + 1))::real, (SELECT min(score) FROM pooled)), c.created_at
    FROM counted c WHERE NOT (SELECT yes FROM few) AND c.r > ${RANKED_POOL}) x
  ORDER BY x.score DESC, x.rowid DESC LIMIT ${limit} OFFSET ${offset}`;
}
