import { randomBytes } from "node:crypto";
import { isAbsolute, relative } from "node:path";
import type { ContextEngine } from "@context-engine/core";

/**
 * The conversation (host session id) of each run of one replay. An engine on a store that outlives
 * the replay (a SQLite file or a PostgreSQL schema from config.yaml) keeps a conversation per session
 * id, so every replay gets ids of its own: replays at once, or one after another, never write into
 * each other's conversation. `continueId` (replay --conversation) puts every run into that one.
 */
export function replayConversationIds(options: { now?: Date; continueId?: string } = {}): (runNo: number) => string {
  const continueId = options.continueId;
  if (continueId) return () => continueId;
  const stamp = (options.now ?? new Date()).toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  const nonce = randomBytes(3).toString("hex");
  return (runNo) => `replay-${stamp}-${nonce}-${runNo}`;
}

interface StoreStatus {
  kind?: unknown;
  location?: unknown;
  schema?: unknown;
}

/**
 * Where an engine keeps what it stores, when that outlives the replay: a store its status reports
 * (`getStatus().store`, or one level down as LCM's `lcm.store`) that is not inside the run's own
 * directory. Null for an engine that stores nothing, or only in the run's temporary directory.
 */
export function persistentStore(engine: ContextEngine, runDir: string): string | null {
  let status: Record<string, unknown>;
  try {
    status = engine.getStatus() as Record<string, unknown>;
  } catch {
    return null;
  }
  const nested = Object.values(status).map((v) => (v && typeof v === "object" ? (v as { store?: unknown }).store : undefined));
  for (const candidate of [status.store, ...nested]) {
    if (!candidate || typeof candidate !== "object") continue;
    const s = candidate as StoreStatus;
    if (typeof s.location !== "string") continue;
    if (s.kind === "postgres") return `${s.location}${typeof s.schema === "string" ? `, schema ${s.schema}` : ""}`;
    if (!inside(s.location, runDir)) return s.location;
  }
  return null;
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
