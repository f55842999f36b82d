import type Database from "better-sqlite3";
import { CJK_RE } from "../codec.js";

/** Maximal runs of the characters that mark a message as CJK (the class of `CJK_RE`). */
const CJK_RUN = new RegExp(`${CJK_RE.source}+`, "g");

/**
 * What SQLite's trigram index holds of a CJK message: its CJK runs only, one
 * per line. unicode61 (the main full-text index) cannot segment CJK, so the
 * trigram index is there for those runs; indexing the whole body made it the
 * largest table of a store (1.2× the raw text of a conversation in which a
 * third of the messages carry one CJK line). A search checks every query term
 * against the whole body as well, so nothing outside the runs is lost.
 */
export function cjkIndexText(body: string | null): string {
  if (!body) return "";
  return body.match(CJK_RUN)?.join("\n") ?? "";
}

/** The SQL function the CJK index's writes and deletes go through (`lcm_cjk_text(body)`). */
export function registerCjkText(db: Database.Database): void {
  db.function("lcm_cjk_text", { deterministic: true }, (body: unknown) => cjkIndexText(typeof body === "string" ? body : null));
}
