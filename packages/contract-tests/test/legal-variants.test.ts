import { describeContextEngineContract } from "../src/index.js";
import {
  CooldownEngine,
  DeclaredOwnPolicyEngine,
  HonouringOverrideEngine,
  OnePerSessionEngine,
  OwnPolicyEngine,
  SynchronousEngine,
} from "./engines/legal-variants.js";
import { OUTSIDER_LEGAL_ENGINES } from "./engines/outsider-legal-2.js";

// Each variation the contract allows passes the whole kit.
describeContextEngineContract({ name: "reference", suiteName: "legal: owns its threshold policy (inferred)", createEngine: (ctx) => new OwnPolicyEngine(ctx) });
describeContextEngineContract({ name: "reference", suiteName: "legal: owns its threshold policy (declared)", createEngine: (ctx) => new DeclaredOwnPolicyEngine(ctx) });
describeContextEngineContract({ name: "reference", suiteName: "legal: overrides updateModel and honours the map", createEngine: (ctx) => new HonouringOverrideEngine(ctx) });
describeContextEngineContract({ name: "minimal", suiteName: "legal: synchronous, no tools", createEngine: (ctx) => new SynchronousEngine(ctx) });
describeContextEngineContract({ name: "reference", suiteName: "legal: a cooldown that force bypasses", createEngine: (ctx) => new CooldownEngine(ctx) });
describeContextEngineContract({ name: "reference", suiteName: "legal: one instance per session", createEngine: (ctx) => new OnePerSessionEngine(ctx) });

// Legal engines written blind with the second outsider round (issue 36): unusual, and allowed.
for (const legal of OUTSIDER_LEGAL_ENGINES) {
  describeContextEngineContract({ name: "reference", suiteName: `legal (outsider): ${legal.variant}`, createEngine: legal.create });
}
