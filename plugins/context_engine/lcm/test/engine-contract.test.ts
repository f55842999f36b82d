import { describeContextEngineContract } from "@context-engine/contract-tests";
import { LcmEngine } from "../src/index.js";

// The contract kit every engine runs: shape, usage, thresholds, compress, tools,
// selectContext, onTurnComplete, concurrency, lifecycle and persistence.
describeContextEngineContract({
  name: "lcm",
  createEngine: (ctx) => new LcmEngine(ctx),
  capabilities: { tools: true, selectContext: true, onTurnComplete: true, persistence: true },
  disposeEngine: (engine) => (engine as LcmEngine).close(),
});
