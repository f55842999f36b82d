export { AgentHost, type AgentHostOptions } from "./host.js";
export { Session, type OpenSessionOptions, type SessionEndReason } from "./session/session.js";
export type { TurnResult, SendOptions, SessionStatus, ManualCompactionResult } from "./session/types.js";
export type { CompactionOutcome, CompactionRequest } from "./compaction/runner.js";
export * from "./events.js";
export { HostConfigSchema, HookTimeoutsSchema, HookBreakerSchema, resolveHostConfig, hostConfigFromFile, type HostConfig, type HostConfigInput, type HookTimeouts, type BoundedHook, type CompactionBoundaryMode } from "./config.js";
export { HostError, ContextBudgetExceededError, PinsOverCapError, SessionClosedError, describeError, type HostErrorCode } from "./errors.js";
export {
  normalizeAgentTools,
  type FunctionTool,
  type ToolDefinition,
  type ToolExecutor,
  type ToolInvocation,
  type ToolExecutionContext,
} from "./tools.js";
export { sanitizeRequestMessages, type SanitizeResult } from "./request/sanitize.js";
export { applyCacheBreakpoints, promptCacheEnabled, type PromptCacheMode } from "./request/cache-breakpoints.js";
export { hasLoneSurrogate, fixLoneSurrogates } from "./request/surrogates.js";
export { hasCompleteOnce, hasCompleteStream, type RetryAwareChatModel, type StreamingChatModel } from "./runtime.js";
export { StreamAccumulator, readEventStream, type StreamDelta } from "./provider/stream.js";
export { createOpenAIChatModel, toResponse, type OpenAIChatModel, type OpenAIChatModelOptions } from "./provider/openai-chat-model.js";
export { mapProviderError, parseRetryAfter } from "./provider/map-error.js";
export { toChatModelError, isRetryable, RETRYABLE_KINDS, looksLikeContextLength, type ChatModelErrorWithRetry } from "./provider/errors.js";
export { canonicalUsage } from "./provider/usage.js";
export { ChatCompletionSchema, ProviderUsageSchema } from "./provider/response-schema.js";
export {
  resolveModelConfig,
  defaultContextLength,
  ModelConfigSchema,
  DEFAULT_CONTEXT_LENGTH,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  lookupContextLength,
  type ContextLengthLookup,
  type ModelConfig,
  type ResolvedModelConfig,
} from "./provider/model-config.js";
export {
  parseSlashCommand,
  runSlashCommand,
  unescapeUserLine,
  formatStatus,
  SLASH_COMMAND_HELP,
  type SlashCommand,
  type SlashCommandOutcome,
} from "./slash-commands.js";
export { createHostFromConfig, type HostFromConfig, type HostFromConfigOptions } from "./from-config.js";
export { PINS_HEADER, isPinsBlock, pinsBlock, placePins, type Pin } from "./ledger/pins-block.js";
export { messageDigest, canonicalMessage as canonicalLedgerMessage } from "./ledger/digest.js";
export { prefixImpact, type PrefixImpact } from "./ledger/prefix-impact.js";
export type { LedgerEntry, LedgerCompaction, LedgerRestore, LedgerPinChange, PlacedMessage } from "./ledger/types.js";
export type { RestoreResult, PinResult, PinInfo, PinInput, UnpinResult } from "./session/ledger-ops.js";
