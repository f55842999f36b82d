import type { OcAgentTool, OcToolContext } from "./tools.js";

/**
 * The parts of OpenClaw's published context-engine interface (openclaw ≥ 2026.8.1,
 * `ContextEngine` in `openclaw/plugin-sdk/agent-harness-runtime`) this adapter
 * implements, written out structurally so the package has no runtime or type
 * dependency on `openclaw`. `test/openclaw-types.ts` checks at compile time that
 * these stay assignable to OpenClaw's own types.
 */

/** pi-ai content blocks. */
export interface OcTextContent {
  type: "text";
  text: string;
  textSignature?: string;
}
export interface OcImageContent {
  type: "image";
  data: string;
  mimeType: string;
}
export interface OcThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}
export interface OcToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  thoughtSignature?: string;
}

export interface OcUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

export interface OcUserMessage {
  role: "user";
  content: string | (OcTextContent | OcImageContent)[];
  timestamp: number;
}
export interface OcAssistantMessage {
  role: "assistant";
  content: (OcTextContent | OcThinkingContent | OcToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: OcUsage;
  stopReason: "stop" | "length" | "toolUse" | "error" | "aborted";
  timestamp: number;
}
export interface OcToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (OcTextContent | OcImageContent)[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
}
/** OpenClaw's harness messages: carried through, shown to engines as user text. */
export interface OcCustomMessage {
  role: "custom";
  customType: string;
  content: string | (OcTextContent | OcImageContent)[];
  display: boolean;
  excludeFromContext?: boolean;
  details?: unknown;
  timestamp: number;
}
export interface OcBranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}
export interface OcCompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  tokensAfter?: number;
  firstKeptEntryId?: string;
  details?: unknown;
  timestamp: number | string;
}
export interface OcBashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  excludeFromContext?: boolean;
  timestamp: number;
}
export type OcOtherMessage = OcCustomMessage | OcBranchSummaryMessage | OcCompactionSummaryMessage | OcBashExecutionMessage;

/** OpenClaw's `AgentMessage`: pi-ai messages plus harness messages. */
export type OcAgentMessage = OcUserMessage | OcAssistantMessage | OcToolResultMessage | OcOtherMessage;

export interface OcTranscriptSemantics {
  currentTurnFence?: "before-current-turn-entry-v1";
  turnAdvancementIdempotency?: "atomic-idempotent-v1";
}

export interface OcContextEngineInfo {
  id: string;
  name: string;
  version?: string;
  acceptedHostParams?: string[];
  transcriptSemantics?: OcTranscriptSemantics;
  ownsCompaction?: boolean;
  turnMaintenanceMode?: "foreground" | "background";
}

export interface OcPromptCacheUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  total?: number;
}

/** What the host passes as `runtimeContext`; only the fields read here. */
export type OcRuntimeContext = Record<string, unknown> & {
  tokenBudget?: number;
  currentTokenCount?: number;
  promptCache?: { lastCallUsage?: OcPromptCacheUsage };
};

/** OpenClaw's `runtimeSettings` (the selected provider and model, per-call limits); only what is read here. */
export interface OcRuntimeSettings {
  model?: { requested?: string | null; resolved?: string | null; provider?: string | null };
  limits?: { promptTokenBudget?: number | null; maxOutputTokens?: number | null };
}

export interface OcSessionParams {
  sessionId: string;
  sessionKey?: string;
  runtimeContext?: OcRuntimeContext;
  runtimeSettings?: OcRuntimeSettings;
}

export interface OcBootstrapParams extends OcSessionParams {
  sessionFile: string;
}
export interface OcIngestParams {
  sessionId: string;
  sessionKey?: string;
  message: OcAgentMessage;
  isHeartbeat?: boolean;
}
export interface OcIngestBatchParams {
  sessionId: string;
  sessionKey?: string;
  messages: OcAgentMessage[];
  isHeartbeat?: boolean;
}
export interface OcAfterTurnParams extends OcSessionParams {
  sessionFile: string;
  messages: OcAgentMessage[];
  prePromptMessageCount: number;
  autoCompactionSummary?: string;
  isHeartbeat?: boolean;
  tokenBudget?: number;
}
export interface OcCommitTurnParams extends OcSessionParams {
  advancementKey: string;
  messages: OcAgentMessage[];
  isHeartbeat?: boolean;
  /** Anchors of the accepted range; carried, not interpreted. */
  admission?: unknown;
  terminal?: unknown;
}
export interface OcAssembleParams extends OcSessionParams {
  messages: OcAgentMessage[];
  tokenBudget?: number;
  model?: string;
  prompt?: string;
}
export interface OcCompactParams {
  sessionId: string;
  sessionKey: string;
  tokenBudget?: number;
  force?: boolean;
  currentTokenCount?: number;
  compactionTarget?: "budget" | "threshold";
  customInstructions?: string;
  runtimeContext?: OcRuntimeContext;
  runtimeSettings?: OcRuntimeSettings;
  abortSignal?: AbortSignal;
}

export interface OcAssembleResult {
  messages: OcAgentMessage[];
  estimatedTokens: number;
  systemPromptAddition?: string;
}
export interface OcCompactResult {
  ok: boolean;
  compacted: boolean;
  reason?: string;
  result?: { summary?: string; tokensBefore: number; tokensAfter?: number; details?: unknown };
}

/** The OpenClaw context engine this package builds. */
export interface OpenClawContextEngine {
  readonly info: OcContextEngineInfo;
  bootstrap(params: OcBootstrapParams): Promise<{ bootstrapped: boolean; importedMessages?: number; reason?: string }>;
  ingest(params: OcIngestParams): Promise<{ ingested: boolean }>;
  ingestBatch(params: OcIngestBatchParams): Promise<{ ingestedCount: number }>;
  afterTurn(params: OcAfterTurnParams): Promise<void>;
  commitTurn(params: OcCommitTurnParams): Promise<{ status: "committed" | "duplicate" }>;
  assemble(params: OcAssembleParams): Promise<OcAssembleResult>;
  compact(params: OcCompactParams): Promise<OcCompactResult>;
  dispose(): Promise<void>;
}

/** What OpenClaw's `registerContextEngine` factory receives. */
export interface OcFactoryContext {
  config?: unknown;
  agentDir?: string;
  workspaceDir?: string;
}

/** The subset of OpenClaw's plugin `api` a context-engine plugin uses. */
export interface OcPluginApi {
  id: string;
  /** OpenClaw's whole config (model providers and their windows live under `models.providers`). */
  config?: unknown;
  pluginConfig?: Record<string, unknown>;
  logger?: { debug?(msg: string): void; info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  registerContextEngine(id: string, factory: (ctx: OcFactoryContext) => OpenClawContextEngine | Promise<OpenClawContextEngine>): void;
  registerTool?(factory: (ctx: OcToolContext) => OcAgentTool[] | null | undefined, opts?: { names?: string[] }): void;
}
