import type { ConversationFixture } from "../fixtures/types.js";
import type { ChatModel, ContextEngine, EngineInitContext, Logger } from "@context-engine/core";

/** Optional parts of the contract an engine implements. */
export interface EngineCapabilities {
  /** Exposes agent-callable tools (`getToolSchemas` / `handleToolCall`). */
  tools?: boolean;
  /** Implements `selectContext`. */
  selectContext?: boolean;
  /** Implements `onTurnComplete`. */
  onTurnComplete?: boolean;
  /** Keeps state in `dataDir` that a new instance on the same directory picks up. */
  persistence?: boolean;
  /**
   * Overrides `updateModel` with its own compaction policy and ignores
   * `modelThresholds` (the contract allows it). Unset: inferred — an engine
   * that keeps the base `updateModel` must honour the map; one that overrides
   * it and still reacts to the map must resolve it as the base class does.
   */
  ownsThresholdPolicy?: boolean;
  /** `compress` returns its list directly, never a promise. Default false (either is allowed). */
  synchronous?: boolean;
  /** One instance may serve several sessions at once (default true; false for strictly one-instance-per-session engines). */
  concurrentSessions?: boolean;
}

/** Groups of checks; each can be switched off with `domains: { name: false }`. */
export type ContractDomain =
  | "shape"
  | "usage"
  | "threshold"
  | "compress"
  | "status"
  | "tools"
  | "selectContext"
  | "onTurnComplete"
  | "concurrency"
  | "lifecycle"
  | "persistence";

export const CONTRACT_DOMAINS: readonly ContractDomain[] = [
  "shape",
  "usage",
  "threshold",
  "compress",
  "status",
  "tools",
  "selectContext",
  "onTurnComplete",
  "concurrency",
  "lifecycle",
  "persistence",
];

/**
 * What `createEngine` receives: an EngineInitContext whose fields are always
 * set. Forward it to your constructor (`new MyEngine(ctx)`), so the kit can
 * give the engine a fake summary model and a fresh data directory per test.
 */
export interface ContractEngineContext extends EngineInitContext {
  chatModel: ChatModel;
  contextLength: number;
  /** A fresh empty temporary directory, removed after the test. */
  dataDir: string;
  logger: Logger;
  model: string;
}

export interface ContractOptions {
  /** The plugin name: `engine.name` must equal it. */
  name: string;
  /** Called once per engine the kit needs (at least once per test); never share state between calls. */
  createEngine: (ctx: ContractEngineContext) => ContextEngine | Promise<ContextEngine>;
  /** Which optional parts the engine implements. Unset fields come from the engine's own `capabilities` declaration, else are inferred. */
  capabilities?: EngineCapabilities;
  /** Switch whole domains off: `{ persistence: false }`. */
  domains?: Partial<Record<ContractDomain, boolean>>;
  /** Title of the top-level describe block (default `ContextEngine contract: <name>`). */
  suiteName?: string;
  /** Context window for the ordinary checks (default 128000). */
  contextLength?: number;
  /** Small window for compaction checks, so the fixtures are well over the threshold (default 8000). */
  compactionContextLength?: number;
  /** Model name passed to `updateModel` (default `contract-test-model`). */
  model?: string;
  /** Arguments for each tool in the "known tool" checks; by default built from the schema. */
  toolArguments?: Record<string, Record<string, unknown>>;
  /** How long an aborted `compress` may take to settle (default 2000 ms). */
  abortGraceMs?: number;
  /** Per-test timeout (default 30000 ms). */
  testTimeoutMs?: number;
  /** More conversations for the compress checks (e.g. recorded sessions), besides the bundled fixtures. */
  extraFixtures?: readonly ConversationFixture[] | (() => Promise<readonly ConversationFixture[]>);
  /**
   * Checks the engine does not pass yet, as `"<domain> > <check>"` (e.g.
   * `"compress > shrinks a conversation well over its threshold"`). They run
   * as expected failures and start failing once the engine passes them.
   */
  todo?: readonly string[];
  /** Release an engine after its test (close databases, timers). */
  disposeEngine?: (engine: ContextEngine) => void | Promise<void>;
}
