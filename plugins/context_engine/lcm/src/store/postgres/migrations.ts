import type { PoolClient } from "pg";
import type { PostgresConnection } from "./connect.js";
import { migrateToSingleText } from "./layout.js";
import { DRAIN_CLAIMS_TABLE } from "../drain-claims.js";
import { PENDING_IMPORTS_TABLE } from "../pending-imports-sql.js";
import { migrateSummarySources } from "./summary-sources.js";
import { migrateToMessageVector } from "./message-vector.js";

/**
 * Versioned migrations of the PostgreSQL schema, applied in order, each once,
 * recorded in `lcm_migrations`. Several processes may open the store at once:
 * the first takes a transaction-scoped advisory lock and migrates, the others
 * wait for it and then find nothing left to do.
 */
export interface Migration {
  version: number;
  name: string;
  up(client: PoolClient): Promise<void>;
}

const IMMUTABLE_TABLES = ["messages", "message_parts", "summaries", "summary_messages", "summary_children", "payloads"];

const V1_TABLES = `
CREATE TABLE conversations (
  id bigserial PRIMARY KEY,
  session_id text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  message_count integer NOT NULL DEFAULT 0,
  last_seq integer NOT NULL DEFAULT -1,
  message_tokens bigint NOT NULL DEFAULT 0,
  text_bytes bigint NOT NULL DEFAULT 0,
  frontier_version integer NOT NULL DEFAULT 0,
  frontier_tokens bigint NOT NULL DEFAULT 0,
  frontier_count integer NOT NULL DEFAULT 0
);
CREATE TABLE payloads (
  hash text PRIMARY KEY,
  bytes integer NOT NULL,
  mime text,
  is_text boolean NOT NULL,
  data bytea NOT NULL
);
CREATE TABLE messages (
  id bigserial PRIMARY KEY,
  conversation_id bigint NOT NULL REFERENCES conversations (id),
  seq integer NOT NULL,
  role text NOT NULL CHECK (role IN ('system', 'developer', 'user', 'assistant', 'tool')),
  -- json, not jsonb: kept as written (jsonb rejects escaped NUL characters and reorders keys).
  message json NOT NULL,
  body text NOT NULL,
  payload text REFERENCES payloads (hash),
  tokens integer NOT NULL,
  created_at bigint NOT NULL,
  hash text NOT NULL,
  tool_call_ids text[] NOT NULL DEFAULT '{}',
  tool_call_id text,
  redacted boolean NOT NULL DEFAULT false,
  search tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED,
  -- Concurrent writers of one conversation: the second insert of a seq conflicts instead of forking the history.
  UNIQUE (conversation_id, seq)
);
CREATE INDEX messages_search ON messages USING gin (search);
CREATE INDEX messages_hash ON messages (conversation_id, hash);
CREATE INDEX messages_tool_call ON messages (conversation_id, tool_call_id) WHERE tool_call_id IS NOT NULL;
CREATE TABLE message_parts (
  message_id bigint NOT NULL REFERENCES messages (id),
  ordinal integer NOT NULL,
  kind smallint NOT NULL,
  call_id text,
  name text,
  body text,
  payload text REFERENCES payloads (hash),
  PRIMARY KEY (message_id, ordinal)
);
CREATE TABLE summaries (
  id text PRIMARY KEY,
  -- numeric handle for search results (the search module pages summaries by it, newest highest)
  rid bigserial UNIQUE,
  conversation_id bigint NOT NULL REFERENCES conversations (id),
  kind text NOT NULL CHECK (kind IN ('leaf', 'condensed')),
  depth integer NOT NULL CHECK (depth >= 0),
  content text NOT NULL,
  tokens integer NOT NULL,
  level text NOT NULL CHECK (level IN ('normal', 'aggressive', 'fallback')),
  model text,
  earliest_at bigint NOT NULL,
  latest_at bigint NOT NULL,
  first_seq integer NOT NULL,
  last_seq integer NOT NULL,
  descendant_messages integer NOT NULL,
  source_tokens bigint NOT NULL,
  meta jsonb,
  created_at bigint NOT NULL,
  search tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);
CREATE INDEX summaries_conversation ON summaries (conversation_id, depth);
CREATE INDEX summaries_search ON summaries USING gin (search);
CREATE TABLE summary_messages (
  summary_id text NOT NULL REFERENCES summaries (id),
  message_id bigint NOT NULL REFERENCES messages (id),
  ordinal integer NOT NULL,
  PRIMARY KEY (summary_id, message_id)
);
CREATE INDEX summary_messages_message ON summary_messages (message_id);
CREATE TABLE summary_children (
  summary_id text NOT NULL REFERENCES summaries (id),
  child_id text NOT NULL REFERENCES summaries (id),
  ordinal integer NOT NULL,
  PRIMARY KEY (summary_id, child_id)
);
CREATE INDEX summary_children_child ON summary_children (child_id);
CREATE TABLE frontier (
  conversation_id bigint NOT NULL REFERENCES conversations (id),
  ordinal bigint NOT NULL,
  message_id bigint REFERENCES messages (id),
  summary_id text REFERENCES summaries (id),
  tokens integer NOT NULL,
  PRIMARY KEY (conversation_id, ordinal),
  CHECK ((message_id IS NULL) <> (summary_id IS NULL))
);
-- Stored history never changes: updates are refused, and deletes only pass inside a hard delete
-- (which sets lcm.hard_delete for its own transaction).
CREATE FUNCTION lcm_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('lcm.hard_delete', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'lcm: rows of % are immutable (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'integrity_constraint_violation';
END $$;
${IMMUTABLE_TABLES.map((t) => `CREATE TRIGGER ${t}_immutable BEFORE UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION lcm_refuse_change();`).join("\n")}
`;

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tables, full-text search, immutability",
    async up(client) {
      await client.query(V1_TABLES);
    },
  },
  {
    version: 2,
    name: "trigram index (pg_trgm) for CJK, substring and regex prefiltering, when the extension is available",
    async up(client) {
      await client.query("SAVEPOINT trgm");
      try {
        // In public: an extension lives in one schema per database, and a test schema is dropped after its run.
        // Database-wide lock: two schemas migrating at once would race on CREATE EXTENSION.
        await client.query("SELECT pg_advisory_xact_lock(hashtext('lcm:create-extension:pg_trgm'))");
        await client.query("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public");
        await client.query("CREATE INDEX messages_trgm ON messages USING gin (body public.gin_trgm_ops)");
        await client.query("CREATE INDEX summaries_trgm ON summaries USING gin (content public.gin_trgm_ops)");
        await client.query("RELEASE SAVEPOINT trgm");
      } catch {
        // No pg_trgm (or no right to create it): substring search scans instead; the store reports it.
        await client.query("ROLLBACK TO SAVEPOINT trgm");
      }
    },
  },
  {
    version: 3,
    name: "full-text search normalised as on SQLite (lcm_fold, porter stemming, no stop words)",
    async up(client) {
      await client.query(V3_SEARCH);
    },
  },
  {
    version: 4,
    name: "ingest keys and writer positions: a turn delivered twice, or a list sent again after a restart, is stored once",
    async up(client) {
      await client.query(`CREATE TABLE ingest_keys (
        conversation_id bigint NOT NULL REFERENCES conversations(id),
        key text NOT NULL,
        message_id bigint,
        created_at bigint NOT NULL,
        PRIMARY KEY (conversation_id, key)
      )`);
      await client.query(`CREATE TABLE writer_positions (
        id bigserial PRIMARY KEY,
        conversation_id bigint NOT NULL REFERENCES conversations(id),
        list_index integer NOT NULL,
        fingerprint text NOT NULL
      )`);
      await client.query("CREATE INDEX writer_positions_conv ON writer_positions (conversation_id, id)");
    },
  },
  {
    version: 5,
    name: "message text stored once: content left out of the json, expression full-text index, trigram index over CJK only",
    up: migrateToSingleText,
  },
  {
    version: 6,
    name: "drain claims: one process at a time summarises a conversation's backlog",
    async up(client) {
      await client.query(DRAIN_CLAIMS_TABLE);
    },
  },
  {
    version: 7,
    name: "summaries smaller: sources keyed by rid (summary_sources), no whole-summary trigram index, small GIN pending list",
    up: migrateSummarySources,
  },
  {
    version: 8,
    name: "no stored message tsvector: expression full-text index, vectors computed for the ranked pool only",
    up: migrateToMessageVector,
  },
  {
    version: 9,
    name: "pending imports: a long history's backlog stored after its tail, in the background, resumable after a restart",
    async up(client) {
      await client.query(PENDING_IMPORTS_TABLE);
    },
  },
];

/**
 * Version 3: full-text search that finds what SQLite's FTS5 finds (`porter unicode61 remove_diacritics 2`),
 * so the same plain query answers alike on both stores. `lcm_fold` (below, and `foldWords` in tsquery.ts
 * for prefixes) does what unicode61 and FTS5's porter do around the stemmer:
 * 1. lower case, Latin accents removed (é → e), every run of characters that are not letters or digits a
 *    separator (so no host, path, version or hyphenated-word tokens of PostgreSQL's own parser);
 * 2. the two rules of the revised Porter algorithm FTS5 has and Snowball's `porter` lacks
 *    (-bly → -ble, -logy/-logies → -log, when the stem has a vowel and a consonant);
 * 3. words FTS5 leaves unstemmed (1–2 or more than 64 ASCII characters) get the tail `qx0`, which the
 *    stemmer never touches.
 * The `lcm_search` configuration then stems every word with Snowball's `porter` (the Porter algorithm
 * FTS5 uses: identical stems on the 6,972 distinct words of the recorded sessions once folded) and
 * keeps every word, as FTS5 does (no stop words: the query side drops the same ones on both stores,
 * search/stop-words.ts). The query side goes through the same function and configuration (tsquery.ts).
 */
export const LCM_FOLD_SQL = String.raw`regexp_replace(regexp_replace(regexp_replace(
    regexp_replace(regexp_replace(normalize(lower(t), NFD), '[\u0300-\u036f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'),
    '\m([a-z]*[aeiouy][b-df-hj-np-tv-xz][a-z]*)bly\M', '\1ble', 'g'),
    '\m([a-z]*[aeiouy][b-df-hj-np-tv-xz][a-z]*)log(y|ies)\M', '\1log', 'g'),
    '\m([a-z0-9]{1,2}|[a-z0-9]{65,})\M', '\1qx0', 'g')`;

const V3_SEARCH = `
CREATE FUNCTION lcm_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $f$
  SELECT ${LCM_FOLD_SQL}
$f$;
CREATE TEXT SEARCH DICTIONARY lcm_porter (TEMPLATE = snowball, LANGUAGE = porter);
CREATE TEXT SEARCH CONFIGURATION lcm_search (PARSER = pg_catalog.default);
ALTER TEXT SEARCH CONFIGURATION lcm_search ADD MAPPING FOR asciiword, word, numword, int, uint, float, sfloat WITH lcm_porter;
ALTER TABLE messages DROP COLUMN search;
ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('lcm_search', lcm_fold(body))) STORED;
CREATE INDEX messages_search ON messages USING gin (search);
ALTER TABLE summaries DROP COLUMN search;
ALTER TABLE summaries ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('lcm_search', lcm_fold(content))) STORED;
CREATE INDEX summaries_search ON summaries USING gin (search);
`;

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/** Bring the schema to the newest version; returns the version found before. Refuses a newer schema. */
export async function migratePostgres(conn: PostgresConnection, migrations: readonly Migration[] = POSTGRES_MIGRATIONS): Promise<number> {
  const { schema } = conn.options;
  return conn.transaction(async (client) => {
    // A migration may build an index over a large table, or wait for another process's migration: the
    // bounds of ordinary calls do not apply (a stalled migrator is still ended by the idle-in-transaction bound).
    await client.query("SET LOCAL statement_timeout = 0");
    await client.query("SET LOCAL lock_timeout = 0");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`lcm:migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.lcm_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.lcm_migrations`);
    const current = rows[0]?.v ?? 0;
    const newest = migrations[migrations.length - 1]?.version ?? 0;
    if (current > newest) {
      throw new Error(`LCM schema "${schema}" is at version ${current}, newer than this package knows (${newest}); upgrade @context-engine/lcm`);
    }
    for (const m of migrations) {
      if (m.version <= current) continue;
      await m.up(client);
      await client.query(`INSERT INTO ${schema}.lcm_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
    }
    return current;
  });
}

/** Whether the CJK trigram index exists (pg_trgm was available when migration 5 ran). */
export async function hasTrigramIndex(conn: PostgresConnection): Promise<boolean> {
  const { rows } = await conn.pool.query("SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'messages_cjk'", [conn.options.schema]);
  return rows.length > 0;
}
