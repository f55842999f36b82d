/**
 * The claim on a conversation's background drain, one row per conversation in `drain_claims`, the same
 * statement on both stores: taken when free, expired, or already this owner's (renewal); refused otherwise.
 * Two processes draining one conversation would both compute every summary and only one could publish
 * each; with the claim the second waits. The expiry frees the drain of a process that died holding it.
 */
export const DRAIN_CLAIMS_TABLE = `CREATE TABLE IF NOT EXISTS drain_claims (
  conversation_id BIGINT PRIMARY KEY REFERENCES conversations(id),
  owner TEXT NOT NULL,
  expires_at BIGINT NOT NULL
)`;

/** Parameters: conversation, owner, new expiry, now. Returns the row when the claim is this owner's. */
export const CLAIM_DRAIN_SQL = `INSERT INTO drain_claims (conversation_id, owner, expires_at) VALUES ($1, $2, $3)
  ON CONFLICT (conversation_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
  WHERE drain_claims.owner = excluded.owner OR drain_claims.expires_at <= $4
  RETURNING owner`;

export const RELEASE_DRAIN_SQL = "DELETE FROM drain_claims WHERE conversation_id = $1 AND owner = $2";

/** The same statements with SQLite's anonymous parameters (each `$n` above appears once, in order). */
export const sqliteParams = (sql: string) => sql.replace(/\$\d/g, "?");
