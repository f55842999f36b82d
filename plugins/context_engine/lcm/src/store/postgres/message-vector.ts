import type { PoolClient } from "pg";

/**
 * Migration 8: no stored `tsvector` per message. The generated `search` column (positions included) was 1.48× the
 * raw text by itself at 10k messages in `pnpm bench`, a third of the database: the store could not come under 3× the
 * raw text with it. The full-text GIN index is now an expression index over the same vector, so every match and
 * document frequency still comes from the index alone (a plain tsquery needs no recheck of the row). The vector is
 * computed from the body only where positions are read: the ranking of a bounded pool of matches (rank.ts) and
 * phrase matches, which the index rechecks.
 * `lcm_fold` (migration 3) is replaced by the same function in PL/pgSQL, about a third cheaper per row: it skips
 * the Unicode normalisation of ASCII text and the two suffix rules when the text holds no `bly` / `log` (each
 * result is the one the SQL function gives; the server encoding is UTF-8, which `normalize` requires anyway).
 * Existing rows keep the dropped column's bytes until the table is rewritten (PostgreSQL drops a column in the
 * catalog only): `VACUUM FULL messages` gives them back; new rows never hold it.
 */

/** A message row's tsvector as the index holds it; queries must write it exactly so for the planner to use the index. */
export const MESSAGE_VECTOR = "to_tsvector('lcm_search', lcm_fold(m.body))";

/**
 * A CTE `matched` of the ids of the messages matching the tsquery `q`, from the GIN index alone: a statement that
 * joins it instead of writing the match beside other conditions never lets the planner test the match row by row
 * (which would compute each row's vector, about 0.1 ms, where the index answers in microseconds).
 */
export function matchedCte(q: string): string {
  return `matched AS MATERIALIZED (SELECT m.id FROM messages m WHERE ${MESSAGE_VECTOR} @@ ${q})`;
}

/**
 * The condition "the row `m` is in `matched`", written so that the planner reads those rows by primary key (a join
 * with the CTE, of unknown size to it, was planned as a scan of the whole conversation).
 */
export const MATCHED_IDS = "m.id = ANY(ARRAY(SELECT id FROM matched))";

/** The GIN pending list, in kB (layout.ts says why it is small). */
const PENDING_LIST_KB = 256;

const FOLD_SQL = String.raw`
CREATE OR REPLACE FUNCTION lcm_fold(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $f$
DECLARE
  x text;
BEGIN
  IF octet_length(t) = length(t) THEN
    x := lower(t);
  ELSE
    x := regexp_replace(normalize(lower(t), NFD), '[\u0300-\u036f]', '', 'g');
  END IF;
  x := regexp_replace(x, '[^[:alnum:]]+', ' ', 'g');
  IF strpos(x, 'bly') > 0 THEN
    x := regexp_replace(x, '\m([a-z]*[aeiouy][b-df-hj-np-tv-xz][a-z]*)bly\M', '\1ble', 'g');
  END IF;
  IF strpos(x, 'log') > 0 THEN
    x := regexp_replace(x, '\m([a-z]*[aeiouy][b-df-hj-np-tv-xz][a-z]*)log(y|ies)\M', '\1log', 'g');
  END IF;
  RETURN regexp_replace(x, '\m([a-z0-9]{1,2}|[a-z0-9]{65,})\M', '\1qx0', 'g');
END
$f$;
`;

const MESSAGE_VECTOR_SQL = `
${FOLD_SQL}
DROP INDEX IF EXISTS messages_search;
ALTER TABLE messages DROP COLUMN IF EXISTS search;
CREATE INDEX messages_search ON messages USING gin ((to_tsvector('lcm_search', lcm_fold(body)))) WITH (gin_pending_list_limit = ${PENDING_LIST_KB});
`;

export async function migrateToMessageVector(client: PoolClient): Promise<void> {
  await client.query(MESSAGE_VECTOR_SQL);
}
