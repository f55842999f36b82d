import type { ResolvedPostgresOptions } from "./options.js";
import { connectionSecrets, describeConnection, scrubConnectionSecrets } from "./url.js";

/** What went wrong, for callers that decide (fail open, retry later) without parsing messages. */
export type PostgresFaultKind = "connection" | "lock_timeout" | "statement_timeout" | "idle_in_transaction_timeout" | "query";

/**
 * An error of the PostgreSQL store: says which server, which schema and what
 * happened, in words, with the server's own message after it. It never holds
 * the URL's password and never wraps the original error (whose fields might).
 */
export class PostgresStoreError extends Error {
  override readonly name = "PostgresStoreError";
  readonly kind: PostgresFaultKind;
  /** The SQLSTATE or Node error code of the original error, when it had one. */
  readonly code: string | undefined;

  constructor(kind: PostgresFaultKind, message: string, code: string | undefined) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

/** Turns any error of `pg` into a PostgresStoreError for one connection's options. */
export type ErrorWrapper = (error: unknown) => unknown;

// SQLSTATE classes and Node codes that mean the session is gone.
const CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const CONNECTION_TEXT = /connection terminated|connection error|not queryable|timeout exceeded when trying to connect|socket hang up|connection (?:is )?closed/i;

export function errorWrapper(options: Pick<ResolvedPostgresOptions, "url" | "schema" | "lockTimeoutMs" | "statementTimeoutMs" | "idleInTransactionTimeoutMs">): ErrorWrapper {
  const where = `PostgreSQL store (${describeConnection(options.url)}, schema ${options.schema})`;
  const secrets = connectionSecrets(options.url);
  return (error) => {
    if (error instanceof PostgresStoreError) return error;
    const raw = error as { message?: unknown; code?: unknown } | null;
    const original = scrubConnectionSecrets(typeof raw?.message === "string" ? raw.message : String(error), secrets);
    const code = typeof raw?.code === "string" ? raw.code : undefined;
    const [kind, explanation] = classify(code, original, options);
    return new PostgresStoreError(kind, `${where}: ${explanation}: ${original}${code ? ` [${code}]` : ""}`, code);
  };
}

function classify(
  code: string | undefined,
  message: string,
  options: Pick<ResolvedPostgresOptions, "lockTimeoutMs" | "statementTimeoutMs" | "idleInTransactionTimeoutMs">,
): [PostgresFaultKind, string] {
  if (code === "55P03") {
    return ["lock_timeout", `waited longer than lock_timeout (${options.lockTimeoutMs} ms) for a lock another session holds (a writer stalled inside an open transaction?); this call's transaction was rolled back`];
  }
  if (code === "57014" && /statement timeout/i.test(message)) {
    return ["statement_timeout", `a statement ran longer than statement_timeout (${options.statementTimeoutMs} ms); this call's transaction was rolled back`];
  }
  if (code === "25P03") {
    return ["idle_in_transaction_timeout", `the server ended a session left idle inside a transaction for longer than ${options.idleInTransactionTimeoutMs} ms`];
  }
  if (code !== undefined && (code.startsWith("28") || code === "3D000")) {
    return ["connection", "the server refused to open a session (check the user, the database and the credentials)"];
  }
  if ((code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith("08"))) || CONNECTION_TEXT.test(message)) {
    return ["connection", "the connection to the server failed or was closed; the call failed (an uncommitted transaction is rolled back by the server) and the next call opens a new connection"];
  }
  return ["query", "the server refused the statement"];
}
