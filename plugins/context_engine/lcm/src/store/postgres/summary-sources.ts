import type { PoolClient } from "pg";

/**
 * Migration 7: what summaries add to a store, made smaller (at 10k messages in `pnpm bench` they took 0.7× the raw
 * text, more than the messages' own index):
 * 1. `summary_sources` replaces `summary_messages`: a summary's source messages keyed by the summary's `rid`
 *    (bigint, already UNIQUE) instead of its text id (`sum_` and 16 hex digits), in the table and in its primary
 *    key (0.33× the raw text before, with its indexes).
 * 2. No trigram index over whole summaries (`summaries_trgm`, migration 2; 0.26×): substring and CJK searches of
 *    summaries read the conversation's summaries, which SQLite does too. The messages' CJK index stays (layout.ts).
 * 3. The summaries' full-text index rebuilt with the small GIN pending list the messages' index has (layout.ts).
 */
const SUMMARY_SOURCES_SQL = `
CREATE TABLE summary_sources (
  summary_rid bigint NOT NULL REFERENCES summaries (rid),
  message_id bigint NOT NULL REFERENCES messages (id),
  ordinal integer NOT NULL,
  PRIMARY KEY (summary_rid, message_id)
);
INSERT INTO summary_sources (summary_rid, message_id, ordinal)
  SELECT s.rid, sm.message_id, sm.ordinal FROM summary_messages sm JOIN summaries s ON s.id = sm.summary_id ORDER BY 1, 3;
DROP TABLE summary_messages;
CREATE INDEX summary_sources_message ON summary_sources (message_id);
CREATE TRIGGER summary_sources_immutable BEFORE UPDATE OR DELETE ON summary_sources FOR EACH ROW EXECUTE FUNCTION lcm_refuse_change();
DROP INDEX IF EXISTS summaries_trgm;
DROP INDEX summaries_search;
CREATE INDEX summaries_search ON summaries USING gin (search) WITH (gin_pending_list_limit = 256);
`;

export async function migrateSummarySources(client: PoolClient): Promise<void> {
  await client.query(SUMMARY_SOURCES_SQL);
}
