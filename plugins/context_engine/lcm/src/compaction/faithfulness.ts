/**
 * The faithfulness check now lives with the other summary acceptance checks
 * in core (one implementation for every engine); re-exported for callers.
 */
export { checkFaithfulness } from "@context-engine/core";
export type { FaithfulnessReport } from "@context-engine/core";
