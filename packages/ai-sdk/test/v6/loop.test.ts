import { generateText, modelMessageSchema, stepCountIs, streamText, wrapLanguageModel } from "ai-v6";
import { MockLanguageModelV3 } from "ai-v6/test";
import { loopSuite } from "../loop-suite.js";
import { realEnginesSuite } from "../real-engines-suite.js";
import { hostileSuite } from "../hostile-suite.js";
import { budgetSuite } from "../budget-suite.js";
import { roundTripSuite } from "../round-trip-suite.js";

const kit = {
  major: 6 as const,
  generateText,
  streamText,
  wrapLanguageModel,
  stepCountIs,
  MockModel: MockLanguageModelV3,
  modelMessageSchema,
  specificationVersion: "v3" as const,
  systemKey: "system" as const,
};

loopSuite(kit);
roundTripSuite(kit);
realEnginesSuite(kit);
hostileSuite(kit);
budgetSuite(kit);
