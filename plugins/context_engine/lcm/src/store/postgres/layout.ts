import type { Message } from "@context-engine/core";
import type { PoolClient } from "pg";

/**
 * Migration 5: the message text stored once. Before it, a message row held its text three times: in the
 * `message` json, in `body`, and as a stored `tsvector` (larger than the text), and the trigram index covered
 * every body (the largest index): 6.6× the raw text at 10k messages. Now:
 * 1. `message` leaves out `content` when it is a plain string equal to `body` (no tool calls, no NUL, which
 *    `body` cannot hold); when nothing but `role` and `tool_call_id` (both columns) is left, it is `{}`. The
 *    reader puts them back (`restoreMessage`). Other messages keep their json whole.
 * 2. The stored `search` tsvector stays (an expression index instead saved 0.7× the raw text, but ranking then
 *    computes each matched row's vector: a word in a fifth of 10k messages took 3.2 s instead of
 *    milliseconds); its GIN index gets a small pending list. (Migration 8 drops it: message-vector.ts.)
 * 3. The trigram index covers only the CJK characters of the bodies that have any (`lcm_cjk`, partial
 *    index): it serves the CJK searches, which need substring matching; other substrings and regexes scan
 *    the id windows the search layer bounds, as on SQLite.
 * The rewrite runs as `ALTER COLUMN … TYPE … USING`, which rewrites the table once (no dead rows left behind,
 * and no row trigger fires, so the immutability triggers stay on).
 */

/** The CJK character class (codec.ts `CJK_RE`, frozen here: the partial index's predicate is this literal). */
const CJK_CLASS = String.raw`[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]`;
const CJK_RUN_RE = new RegExp(`${CJK_CLASS}+`, "g");

/** The predicate of the CJK trigram index, written as queries must write it for the planner to use the index. */
export const HAS_CJK_SQL = `m.body ~ '${CJK_CLASS}'`;

/** The CJK runs of a search term (each must occur in `lcm_cjk(body)` when the term occurs in the body). */
export function cjkRuns(term: string): string[] {
  return term.match(CJK_RUN_RE) ?? [];
}

/**
 * The GIN pending list, in kB. Its pages stay in the index file once used: at the default 4 MB that was an index
 * 3.5× the size of the same index rebuilt at 10k messages (4.95 against 1.42 MB at 256 kB), and turning the list
 * off made ingest 3× slower (every word inserted into the tree one row at a time).
 */
const PENDING_LIST_KB = 256;

const LAYOUT_SQL = `
CREATE FUNCTION lcm_cjk(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $f$
  SELECT regexp_replace(t, '[^${CJK_CLASS.slice(1)}+', ' ', 'g')
$f$;
-- The json without its content when the content is the body: the body is the one copy.
CREATE FUNCTION lcm_message_without_body(message json, body text) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
  SELECT CASE
    WHEN strpos(message::text, '\\u0000') > 0 OR json_typeof(message -> 'content') IS DISTINCT FROM 'string' OR (message -> 'tool_calls') IS NOT NULL THEN message
    WHEN message ->> 'content' IS DISTINCT FROM body THEN message
    WHEN (SELECT bool_and(e.key IN ('role', 'content', 'tool_call_id')) FROM json_each(message) AS e) THEN '{}'::json
    ELSE (SELECT json_object_agg(e.key, e.value ORDER BY e.n) FROM json_each(message) WITH ORDINALITY AS e(key, value, n) WHERE e.key <> 'content')
  END
$f$;
DROP INDEX messages_search;
DROP INDEX IF EXISTS messages_trgm;
ALTER TABLE messages ALTER COLUMN message TYPE json USING lcm_message_without_body(message, body);
CREATE INDEX messages_search ON messages USING gin (search) WITH (gin_pending_list_limit = ${PENDING_LIST_KB});
`;

export async function migrateToSingleText(client: PoolClient): Promise<void> {
  await client.query(LAYOUT_SQL);
  await client.query("SAVEPOINT cjk");
  try {
    // pg_trgm lives in public (migration 2); without it, CJK searches scan.
    await client.query(`CREATE INDEX messages_cjk ON messages USING gin (lcm_cjk(body) public.gin_trgm_ops) WITH (gin_pending_list_limit = ${PENDING_LIST_KB}) WHERE body ~ '${CJK_CLASS}'`);
    await client.query("RELEASE SAVEPOINT cjk");
  } catch {
    await client.query("ROLLBACK TO SAVEPOINT cjk");
  }
}

/** Keys a stored `{}` stands for: the role and tool_call_id columns and the body. */
const COLUMN_KEYS = new Set(["role", "content", "tool_call_id"]);

/** The json to store for a message whose searchable text is `body` (read back by `restoreMessage`). */
export function storedMessageJson(message: Message, body: string): string {
  const m = message as unknown as Record<string, unknown>;
  if (typeof m.content !== "string" || m.content !== body || m.tool_calls !== undefined) return JSON.stringify(message);
  const keys = Object.keys(m).filter((k) => m[k] !== undefined);
  if (keys.every((k) => COLUMN_KEYS.has(k)) && (m.tool_call_id === undefined || typeof m.tool_call_id === "string")) return "{}";
  const rest: Record<string, unknown> = {};
  for (const k of keys) if (k !== "content") rest[k] = m[k];
  return JSON.stringify(rest);
}

/** A stored message as it was ingested: what the json left out put back from the row's columns. */
export function restoreMessage(stored: unknown, row: { body: string; role: string; toolCallId: string | null }): Message {
  const m = stored as Record<string, unknown>;
  if ("content" in m) return m as unknown as Message;
  if (!("role" in m)) return (row.toolCallId === null ? { role: row.role, content: row.body } : { role: row.role, content: row.body, tool_call_id: row.toolCallId }) as Message;
  const { role, ...rest } = m;
  return { role, content: row.body, ...rest } as unknown as Message;
}
