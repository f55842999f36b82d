import type { PendingImport } from "./import-plan.js";

/**
 * A conversation's import still storing its backlog (import-plan.ts), the same table on both stores. It
 * holds positions and a fingerprint, never message text: the backlog itself stays with the host's list
 * until it is stored (redacted), so no unredacted secret is written anywhere meanwhile.
 */
export const PENDING_IMPORTS_TABLE = `CREATE TABLE IF NOT EXISTS pending_imports (
  conversation_id BIGINT PRIMARY KEY REFERENCES conversations(id),
  next_seq BIGINT NOT NULL,
  end_seq BIGINT NOT NULL,
  next_index BIGINT NOT NULL,
  anchor_index BIGINT NOT NULL,
  anchor_fingerprint TEXT NOT NULL,
  ordinal_base BIGINT NOT NULL,
  anchor_message_id BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
)`;

/** Column order of the statements below. */
export const PENDING_IMPORT_COLUMNS = `conversation_id, next_seq, end_seq, next_index, anchor_index, anchor_fingerprint, ordinal_base, anchor_message_id, updated_at`;

export interface PendingImportRow {
  conversation_id: number | string;
  next_seq: number | string;
  end_seq: number | string;
  next_index: number | string;
  anchor_index: number | string;
  anchor_fingerprint: string;
  ordinal_base: number | string;
  anchor_message_id: number | string;
  updated_at: number | string;
}

export function pendingImportOf(r: PendingImportRow | undefined): PendingImport | null {
  if (!r) return null;
  return {
    conversationId: Number(r.conversation_id),
    nextSeq: Number(r.next_seq),
    endSeq: Number(r.end_seq),
    nextIndex: Number(r.next_index),
    anchorIndex: Number(r.anchor_index),
    anchorFingerprint: r.anchor_fingerprint,
    ordinalBase: Number(r.ordinal_base),
    anchorMessageId: Number(r.anchor_message_id),
    updatedAt: Number(r.updated_at),
  };
}

export function pendingImportParams(p: PendingImport): unknown[] {
  return [p.conversationId, p.nextSeq, p.endSeq, p.nextIndex, p.anchorIndex, p.anchorFingerprint, p.ordinalBase, p.anchorMessageId, p.updatedAt];
}
