import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InputError, UsageError } from "../errors.js";

/**
 * The file-system and naming edges of `lcm import|export`: bounded reads, store
 * paths that must be databases, outputs that appear whole or not at all, and
 * PostgreSQL URLs that never reach a message with their password.
 */

/** The largest export file `lcm import` reads (bytes); past it the read stops with a clear error. */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

/** Read `path` (a regular file or a pipe) up to `maxBytes`; devices are refused, endless streams stop at the bound. */
export function readBounded(path: string, shown: string, maxBytes = MAX_IMPORT_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new InputError(`lcm import: cannot read ${shown}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new InputError(`lcm import: ${shown} is a directory, not an export file`);
    if (st.isCharacterDevice() || st.isBlockDevice()) throw new InputError(`lcm import: ${shown} is a device, not an export file`);
    if (st.isFile() && st.size > maxBytes) throw new InputError(`lcm import: ${shown} is ${st.size} bytes; exports of at most ${maxBytes} bytes are read`);
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new InputError(`lcm import: ${shown} goes on past ${maxBytes} bytes (an endless stream?); exports of at most ${maxBytes} bytes are read`);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks, total).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * A SQLite store path must be missing (import creates it, with its directory) or an SQLite database:
 * anything else (a directory, a device, a foreign or empty file) is refused before it is opened, so it
 * stays as it was. (A live store in WAL mode may have an empty main file while its -wal file holds the data.)
 */
export function checkSqliteStore(path: string, mustExist: boolean): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    if (mustExist) throw new InputError(`lcm export: no LCM store at ${path}; nothing was created`);
    return;
  }
  if (!st.isFile()) throw new InputError(`lcm: ${path} is not an SQLite database (not a regular file); nothing was changed`);
  if (st.size === 0 && existsSync(`${path}-wal`)) return;
  const header = Buffer.alloc(16);
  const fd = openSync(path, "r");
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString("latin1") !== SQLITE_HEADER) throw new InputError(`lcm: ${path} is not an SQLite database; nothing was changed`);
}

/** Write `text` to `path` whole or not at all: the directory must exist, and a failed write leaves no file. */
export function writeWhole(path: string, text: string): void {
  let dir;
  try {
    dir = statSync(dirname(path));
  } catch {
    throw new InputError(`lcm export: the directory of ${path} does not exist; nothing was written`);
  }
  if (!dir.isDirectory()) throw new InputError(`lcm export: ${dirname(path)} is not a directory; nothing was written`);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text, { flag: "wx" });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new InputError(`lcm export: cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}; nothing was written`);
  }
}

/** PostgreSQL schema names as the store takes them: lower-case identifiers (never quoted, so never mixed case). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkSchemaName(schema: string | undefined, isPostgres: boolean): void {
  if (schema === undefined) return;
  if (!isPostgres) throw new UsageError("lcm: --schema applies to a postgres:// store only");
  if (!SCHEMA_NAME.test(schema)) {
    throw new UsageError(`lcm: --schema ${JSON.stringify(schema)} is not a lower-case identifier (letters, digits, _; at most 63 characters)`, {
      hints: ["Schema names are used as they are, never quoted: mixed case, spaces and punctuation are refused."],
    });
  }
}

/** Secrets of a URL store target (password, raw and decoded), to be kept out of every message. */
export function urlSecrets(target: string): string[] {
  try {
    const password = new URL(target).password;
    if (!password) return [];
    const decoded = safeDecode(password);
    return [...new Set([password, decoded])].filter((s) => s.length > 0);
  } catch {
    // Not parseable as a URL: hide whatever sits between "scheme://user:" and "@".
    const m = /^[a-z]+:\/\/[^:/@]*:([^@]*)@/i.exec(target);
    return m?.[1] ? [m[1]] : [];
  }
}

/** How a store target appears in messages: a URL without its password. */
export function displayTarget(target: string): string {
  return scrub(target, urlSecrets(target));
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join("***");
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
