import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextEngine, overridesHook, type ChatModel, type Logger } from "@context-engine/core";
import { createScriptedChatModel as createFakeChatModel } from "@context-engine/core/test";
import type { ContractEngineContext, ContractOptions, EngineCapabilities } from "./options.js";

export type ResolvedCapabilities = Required<EngineCapabilities> & {
  /** Where each value came from, for skip notes and messages. */
  from: Record<keyof EngineCapabilities, "options" | "engine" | "inferred">;
};

export interface CreateOverrides {
  /** `null` builds the engine without a chat model. */
  chatModel?: ChatModel | null;
  contextLength?: number;
  dataDir?: string;
  /** Assigned before the first `updateModel`, as the plugin loader does. */
  modelThresholds?: Record<string, number>;
  /** Leave the engine exactly as constructed. */
  skipUpdateModel?: boolean;
}

/** A logger that keeps what it was told (engines may log; the kit never fails on it). */
function collectingLogger(): Logger {
  const noop = () => {};
  return { debug: noop, info: noop, warn: noop, error: noop };
}

/** Builds engines for one test at a time and cleans up after each. */
export class Harness {
  readonly options: ContractOptions;
  readonly contextLength: number;
  readonly compactionContextLength: number;
  readonly model: string;
  readonly abortGraceMs: number;
  readonly timeout: number;
  #engines: ContextEngine[] = [];
  #dirs: string[] = [];
  #probe: Promise<ResolvedCapabilities> | undefined;
  #probeDirs: string[] = [];

  constructor(options: ContractOptions) {
    this.options = options;
    this.contextLength = options.contextLength ?? 128_000;
    this.compactionContextLength = options.compactionContextLength ?? 8_000;
    this.model = options.model ?? "contract-test-model";
    this.abortGraceMs = options.abortGraceMs ?? 2_000;
    this.timeout = options.testTimeoutMs ?? 30_000;
  }

  /** A fresh empty directory, removed after the test. */
  tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "context-engine-contract-"));
    this.#dirs.push(dir);
    return dir;
  }

  /** Construct an engine as a host would: `createEngine(ctx)`, `modelThresholds`, then `updateModel`. */
  async create(over: CreateOverrides = {}): Promise<ContextEngine> {
    const contextLength = over.contextLength ?? this.contextLength;
    const ctx: ContractEngineContext = {
      chatModel: over.chatModel === undefined ? createFakeChatModel() : (over.chatModel as ChatModel),
      contextLength,
      dataDir: over.dataDir ?? this.tempDir(),
      logger: collectingLogger(),
      model: this.model,
    };
    if (over.chatModel === null) delete (ctx as Partial<ContractEngineContext>).chatModel;
    const engine = await this.options.createEngine(ctx);
    this.#engines.push(engine);
    if (over.modelThresholds) engine.modelThresholds = { ...over.modelThresholds };
    if (!over.skipUpdateModel) await engine.updateModel(this.model, contextLength);
    return engine;
  }

  /** Dispose one engine now (e.g. before a second instance opens the same dataDir). */
  async dispose(engine: ContextEngine): Promise<void> {
    const i = this.#engines.indexOf(engine);
    if (i < 0) return;
    this.#engines.splice(i, 1);
    await this.options.disposeEngine?.(engine);
  }

  /** Dispose the engines and remove the directories of the test that just ran. */
  async cleanup(): Promise<void> {
    const engines = this.#engines.splice(0);
    for (const engine of engines) {
      try {
        await this.options.disposeEngine?.(engine);
      } catch {
        // Disposal problems are the author's to see in their own hook; they never fail a check.
      }
    }
    for (const dir of this.#dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }

  async cleanupProbe(): Promise<void> {
    for (const dir of this.#probeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }

  /** Capabilities from the options, else the engine's declaration, else inferred from a probe instance. */
  capabilities(): Promise<ResolvedCapabilities> {
    this.#probe ??= (async () => {
      const dir = mkdtempSync(join(tmpdir(), "context-engine-contract-probe-"));
      this.#probeDirs.push(dir);
      const engine = await this.options.createEngine({
        chatModel: createFakeChatModel(),
        contextLength: this.contextLength,
        dataDir: dir,
        logger: collectingLogger(),
        model: this.model,
      });
      try {
        const declared = declaredCapabilities(engine);
        const inferred: Required<EngineCapabilities> = {
          tools: safeToolCount(engine) > 0,
          selectContext: overridesHook(engine, "selectContext"),
          onTurnComplete: overridesHook(engine, "onTurnComplete"),
          persistence: false,
          ownsThresholdPolicy: false,
          synchronous: false,
          concurrentSessions: true,
        };
        const out = { from: {} } as ResolvedCapabilities;
        for (const key of CAPABILITY_KEYS) {
          const fromOptions = this.options.capabilities?.[key];
          const fromEngine = declared[key];
          if (typeof fromOptions === "boolean") {
            out[key] = fromOptions;
            out.from[key] = "options";
          } else if (typeof fromEngine === "boolean") {
            out[key] = fromEngine;
            out.from[key] = "engine";
          } else {
            out[key] = inferred[key];
            out.from[key] = "inferred";
          }
        }
        return out;
      } finally {
        try {
          await this.options.disposeEngine?.(engine);
        } catch {
          // ignore
        }
      }
    })();
    return this.#probe;
  }
}

const CAPABILITY_KEYS = ["tools", "selectContext", "onTurnComplete", "persistence", "ownsThresholdPolicy", "synchronous", "concurrentSessions"] as const;

/** Whether the engine replaces the base class's `updateModel` (and so may own its threshold policy). */
export function overridesUpdateModel(engine: ContextEngine): boolean {
  return typeof engine.updateModel === "function" && engine.updateModel !== ContextEngine.prototype.updateModel;
}

function safeToolCount(engine: ContextEngine): number {
  try {
    const schemas = engine.getToolSchemas();
    return Array.isArray(schemas) ? schemas.length : 0;
  } catch {
    return 0;
  }
}

/** `engine.capabilities` or a static `capabilities` on its class. */
function declaredCapabilities(engine: ContextEngine): EngineCapabilities {
  const own = (engine as { capabilities?: unknown }).capabilities;
  const onClass = (engine.constructor as { capabilities?: unknown } | undefined)?.capabilities;
  const pick = (v: unknown): EngineCapabilities => (v && typeof v === "object" ? (v as EngineCapabilities) : {});
  return { ...pick(onClass), ...pick(own) };
}
