import { describeContextEngineContract } from "@context-engine/contract-tests";
import { ContextCompressor } from "../src/index.js";

// The built-in engine must pass the same contract kit third-party engines run.
describeContextEngineContract({
  name: "compressor",
  createEngine: (ctx) => new ContextCompressor(ctx),
  capabilities: { tools: false, onTurnComplete: false, persistence: false },
});
