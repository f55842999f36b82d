import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Reports quote the replayed conversations: readable by their owner only, like chat transcripts. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** The folder reports go to when no `--report` path is given (shared temp space, so kept owner-only). */
export function defaultReportDir(): string {
  return join(tmpdir(), "context-engine-reports");
}

/**
 * Write a report owner-only (0600), creating missing folders 0700. The default
 * report folder is ours, so an existing one left 0755 by an older version is
 * tightened too; a folder the user named is left as the user made it.
 */
export function writeReportFile(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  if (dir === defaultReportDir() && (statSync(dir).mode & 0o777) !== DIR_MODE) chmodSync(dir, DIR_MODE);
  const fd = openSync(path, "w", FILE_MODE);
  try {
    // `mode` applies only when the file is created; an existing report is tightened as well.
    fchmodSync(fd, FILE_MODE);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
