import { generateText, modelMessageSchema, stepCountIs, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { loopSuite } from "../loop-suite.js";
import { realEnginesSuite } from "../real-engines-suite.js";
import { hostileSuite } from "../hostile-suite.js";
import { budgetSuite } from "../budget-suite.js";
import { roundTripSuite } from "../round-trip-suite.js";

const kit = {
  major: 7 as const,
  generateText,
  streamText,
  wrapLanguageModel,
  stepCountIs,
  MockModel: MockLanguageModelV4,
  modelMessageSchema,
  specificationVersion: "v4" as const,
  systemKey: "instructions" as const,
};

loopSuite(kit);
roundTripSuite(kit);
realEnginesSuite(kit);
hostileSuite(kit);
budgetSuite(kit);
