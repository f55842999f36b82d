import { LcmEngine } from "./engine.js";

export { LcmEngine } from "./engine.js";
export { configSchema, parseConfig } from "./config.js";
export type { LcmConfig } from "./config.js";
export { deterministicSummary, FALLBACK_MARKER } from "./compaction/fallback.js";
export { checkFaithfulness } from "./compaction/faithfulness.js";
export type { FaithfulnessReport } from "./compaction/faithfulness.js";
export { CONTEXT_TAG, isEngineMessage } from "./assembly/render.js";
export type * from "./store/types.js";

export default LcmEngine;
