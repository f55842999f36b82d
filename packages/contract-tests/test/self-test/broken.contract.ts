// Run by test/self-test.test.ts in a separate vitest process: every broken engine through the kit.
import { describeContextEngineContract } from "../../src/index.js";
import { BROKEN_ENGINES } from "../engines/broken-engines.js";
import { MORE_BROKEN_ENGINES } from "../engines/broken-engines-2.js";
import { RULE_BROKEN_ENGINES } from "../engines/broken-engines-3.js";

for (const broken of [...BROKEN_ENGINES, ...MORE_BROKEN_ENGINES, ...RULE_BROKEN_ENGINES]) {
  describeContextEngineContract({
    name: "reference",
    suiteName: `broken:${broken.defect}`,
    createEngine: broken.create,
    abortGraceMs: 300,
  });
}
