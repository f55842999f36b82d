import { CliError, EXIT } from "../errors.js";

/**
 * What went wrong with a store and what to do about it, from an error thrown while opening or
 * using it (PostgreSQL server errors carry a SQLSTATE `code`; network errors an errno `code`).
 * Null when the error is not a recognisable store problem (then it is reported as a bug).
 */
export function storeProblem(error: unknown, shown?: string): CliError | null {
  if (!(error instanceof Error)) return null;
  const at = shown ? ` (${shown})` : "";
  const code = (error as { code?: unknown }).code;
  const message = error.message;
  const inner = error instanceof AggregateError ? error.errors.find((e) => e instanceof Error) : undefined;
  const innerCode = (inner as { code?: unknown } | undefined)?.code;
  const errno = typeof code === "string" ? code : typeof innerCode === "string" ? innerCode : undefined;
  const problem = (text: string, hints: string[]) => new CliError(`${text}${at}`, EXIT.config, { hints, cause: error });

  if (/needs the "pg" package/.test(message) || (errno === "ERR_MODULE_NOT_FOUND" && /['"]pg['"]/.test(message))) {
    return problem("the PostgreSQL LCM store needs the pg package, which is not installed", ["Install it next to context-engine: npm install pg"]);
  }
  if (/^invalid PostgreSQL store options/.test(message)) return new CliError(message, EXIT.usage, { hints: ["A schema name is a lower-case identifier: letters, digits and _."], cause: error });
  switch (errno) {
    case "LCM_NO_SCHEMA":
      return new CliError(`${message.replace(/^no LCM store/, "No LCM store")}; nothing was created`, EXIT.input, {
        hints: ["Name the schema the engine writes to with --schema <name> (or engines.lcm.schema in config.yaml)."],
        cause: error,
      });
    case "ECONNREFUSED":
      return problem("cannot connect to PostgreSQL: the connection was refused", ["Is the server running, and are the host and port in the URL right?"]);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return problem("cannot connect to PostgreSQL: the host name does not resolve", ["Check the host in the URL."]);
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return problem("cannot connect to PostgreSQL: the host cannot be reached", ["Check the host and port in the URL, and any firewall between."]);
    case "ECONNRESET":
      return problem("PostgreSQL closed the connection", ["Check the server's log; retry when it is up again."]);
    case "3D000":
      return problem(`PostgreSQL: ${message}`, ["Create it (createdb <name>) or name an existing database in the URL."]);
    case "28000":
    case "28P01":
      return problem(`PostgreSQL refused the login: ${message}`, [
        "Put the user in the URL (postgres://user@host:port/db) or set PGUSER; a password goes in PGPASSWORD or ~/.pgpass.",
      ]);
    case "3F000":
    case "42501":
      return problem(`PostgreSQL: ${message}`, ["Use a schema the user may create and write (--schema, default lcm), or grant the rights."]);
    case "SQLITE_CANTOPEN":
    case "SQLITE_NOTADB":
    case "SQLITE_CORRUPT":
      return problem(`the SQLite LCM store cannot be opened: ${message}`, ["Check the path; a file that is not an LCM database is never overwritten."]);
    case "SQLITE_READONLY":
    case "SQLITE_BUSY":
      return problem(`the SQLite LCM store cannot be written: ${message}`, ["Check the file's permissions and that no other process holds it."]);
  }
  // Any other server-side error: a SQLSTATE plus pg's severity field.
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && "severity" in error) {
    return problem(`PostgreSQL error ${code}: ${message}`, ["Check the database, user and schema in the URL."]);
  }
  return null;
}
