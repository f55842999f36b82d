import { describeContextEngineContract } from "@context-engine/contract-tests";
import { LcmEngine } from "../src/index.js";

// The contract kit every engine runs: shape, usage, thresholds, compress, tools,
// selectContext, onTurnComplete, concurrency and lifecycle.
// Persistence is proven in engine.test.ts ("a new instance on the same dataDir…"):
// the kit's own persistence check fills every string argument of every tool with
// its needle, so lcm_grep rightly rejects `since: "zqpersistneedle"` as a date.
describeContextEngineContract({
  name: "lcm",
  createEngine: (ctx) => new LcmEngine(ctx),
  capabilities: { tools: true, selectContext: true, onTurnComplete: true, persistence: true },
  domains: { persistence: false },
  disposeEngine: (engine) => (engine as LcmEngine).close(),
});
