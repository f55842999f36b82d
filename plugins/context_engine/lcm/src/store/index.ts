export type * from "./types.js";
export { openLcmStore, resolveStorePath, SqliteLcmStore } from "./sqlite-store.js";
export { SCHEMA_VERSION, migrate } from "./schema.js";
export { alignTranscript } from "./align.js";
