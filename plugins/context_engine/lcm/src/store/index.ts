export type * from "./types.js";
export { openLcmStore, resolveStorePath } from "./sqlite/store.js";
export { SCHEMA_VERSION, migrate } from "./sqlite/schema.js";
