import { afterAll, afterEach, describe } from "vitest";
import { registerCompress } from "./domains/compress.js";
import { registerConcurrency } from "./domains/concurrency.js";
import { registerLifecycle } from "./domains/lifecycle.js";
import { registerPersistence } from "./domains/persistence.js";
import { registerSelectContext } from "./domains/select-context.js";
import { registerShape } from "./domains/shape.js";
import { registerStatus } from "./domains/status.js";
import { registerThreshold } from "./domains/threshold.js";
import { registerTools } from "./domains/tools.js";
import { registerTurnComplete } from "./domains/turn-complete.js";
import { registerUsage } from "./domains/usage.js";
import { Harness } from "./harness.js";
import { beginDomain } from "./it.js";
import { CONTRACT_DOMAINS, type ContractDomain, type ContractOptions } from "./options.js";

const DOMAIN_TITLES: Record<ContractDomain, [string, (h: Harness) => void]> = {
  shape: ["shape", registerShape],
  usage: ["usage tracking", registerUsage],
  threshold: ["threshold", registerThreshold],
  compress: ["compress", registerCompress],
  status: ["reset and status", registerStatus],
  tools: ["tools", registerTools],
  selectContext: ["selectContext", registerSelectContext],
  onTurnComplete: ["onTurnComplete", registerTurnComplete],
  concurrency: ["concurrency", registerConcurrency],
  lifecycle: ["lifecycle", registerLifecycle],
  persistence: ["persistence", registerPersistence],
};

/**
 * Register the ContextEngine contract suites for an engine in the calling
 * vitest file. `createEngine` is called for every engine a test needs, with a
 * fresh temporary `dataDir` and a deterministic fake `chatModel`; forward the
 * context to your constructor. Optional parts (tools, selectContext,
 * onTurnComplete, persistence) come from `capabilities`, else the engine's own
 * `capabilities` declaration, else are inferred; parts an engine does not
 * implement are checked to behave as the default.
 */
export function describeContextEngineContract(options: ContractOptions): void {
  if (!options || typeof options.createEngine !== "function") {
    throw new TypeError("describeContextEngineContract: options.createEngine must be a function returning a ContextEngine");
  }
  if (typeof options.name !== "string" || !options.name) {
    throw new TypeError("describeContextEngineContract: options.name must be the plugin name (the context.engine value)");
  }
  const harness = new Harness(options);
  const todo = new Set(options.todo ?? []);
  describe(options.suiteName ?? `ContextEngine contract: ${options.name}`, () => {
    afterEach(() => harness.cleanup());
    afterAll(() => harness.cleanupProbe());
    for (const domain of CONTRACT_DOMAINS) {
      if (options.domains?.[domain] === false) continue;
      const [title, register] = DOMAIN_TITLES[domain];
      describe(title, () => {
        beginDomain(title, todo);
        register(harness);
        beginDomain("", new Set());
      });
    }
  });
}
