import { LcmEngine } from "./engine.js";

// The engine (what context.engine: lcm loads) and its config schema.
export { LcmEngine } from "./engine.js";
import { pinNativeObjects as pinNative } from "./store/native-pin.js";
import type { PinNativeObjects } from "./store/native-database.js";
export type { PinNativeObjects, PinnableDatabase } from "./store/native-database.js";
/** Keep a better-sqlite3 database (and what it prepares) alive where Node 24 needs it; returns `db`. Typed without better-sqlite3's types. */
export const pinNativeObjects = pinNative as unknown as PinNativeObjects;
export { configSchema, parseConfig } from "./config.js";
export type { LcmConfig } from "./config.js";
export { deterministicSummary, FALLBACK_MARKER } from "./compaction/fallback.js";
export { checkFaithfulness } from "./compaction/faithfulness.js";
export type { FaithfulnessReport } from "./compaction/faithfulness.js";
export { CONTEXT_TAG, isEngineMessage } from "./assembly/render.js";

// The building blocks, for tools that inspect or maintain an LCM database without an engine.
export type * from "./store/types.js";
export { openLcmStore, resolveStorePath } from "./store/index.js";
export { acquireStore } from "./store/pool.js";
export { openPostgresStore } from "./store/open.js";
export type { PostgresStoreOptions } from "./store/postgres/options.js";
export { MAX_POSTGRES_TIMEOUT_MS, POSTGRES_CONFIG_KEYS, POSTGRES_TIMEOUT_DEFAULTS, PostgresOptionsError, postgresOptionsFromConfig } from "./store/postgres/options.js";
export { PostgresStoreError, type PostgresFaultKind } from "./store/postgres/errors.js";
export { describeConnection } from "./store/postgres/url.js";
export { exportConversation, importConversation, parseConversationExport, ConversationExportSchema } from "./transfer/index.js";
export type { ConversationExport } from "./transfer/index.js";
export type { StoreLease } from "./store/pool.js";
export { searchHistory, parseQuery, STOP_WORDS } from "./search/index.js";
export type { SearchHit, SearchQuery, SearchResult } from "./search/index.js";
// The search operations a store implements (`LcmStore.searchStore()`).
export type * from "./store/search-types.js";
export { lcmToolSchemas, handleLcmToolCall, isLcmTool } from "./tools/index.js";
export type { LcmToolContext } from "./tools/index.js";
export { createRedactor, RedactionConfigSchema } from "./redact/index.js";
export type { RedactionConfig } from "./redact/index.js";
export { applyRetention, deleteConversation, deleteSession, RetentionPolicySchema } from "./retention/index.js";
export type { DeleteReport, RetentionPolicy, RetentionReport } from "./retention/index.js";

export default LcmEngine;
