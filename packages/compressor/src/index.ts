export { ContextCompressor } from "./compressor.js";
export type { CompressorStatus } from "./compressor.js";
export {
  CompressionConfigSchema,
  CompressionConfigError,
  parseCompressionConfig,
  unknownCompressionKeys,
} from "./config.js";
export type { CompressionConfig, CompressionConfigInput } from "./config.js";
export {
  SUMMARY_PREFIX,
  SUMMARY_END_MARKER,
  RESTATED_REQUEST_HEADER,
  EXTRACTIVE_TAG,
  isSummaryMessage,
  extractSummaryBody,
} from "./markers.js";
export { HEADINGS as SUMMARY_HEADINGS, NO_USER_SENTINEL, buildSummaryPrompt } from "./prompt.js";
export { buildExtractiveSummary } from "./extractive.js";
export { TERMINAL_KINDS, classifyError, cooldownSeconds, failureAction } from "./failure-policy.js";
export type { FailureAction } from "./failure-policy.js";
export { sanitizeToolPairs } from "./sanitize.js";
export type { CompactionRecord, SummaryRejectionRecord } from "./session-state.js";
export { SummaryRejectedError } from "./summary-call.js";
// Re-exported so hosts can resolve thresholds without importing core directly.
export { resolveModelThreshold } from "@context-engine/core";
export { ContextCompressor as default } from "./compressor.js";
