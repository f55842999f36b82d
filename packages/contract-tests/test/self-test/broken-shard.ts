// Run by test/self-test.test.ts in a separate vitest process: the broken engines through the kit, in shards.
// The kit's checks mostly wait (hung hooks, abort grace), so shards in parallel workers finish in a quarter of the time.
import { describeContextEngineContract } from "../../src/index.js";
import { BROKEN_ENGINES } from "../engines/broken-engines.js";
import { MORE_BROKEN_ENGINES } from "../engines/broken-engines-2.js";
import { RULE_BROKEN_ENGINES } from "../engines/broken-engines-3.js";
import { STATE_BROKEN_ENGINES } from "../engines/broken-engines-4.js";
import { PIN_BROKEN_ENGINES } from "../engines/broken-engines-5.js";
import { OUTSIDER_ENGINES } from "../engines/outsider-engines.js";
import { OUTSIDER_ENGINES_2 } from "../engines/outsider-engines-2.js";

export const SHARDS = 4;

/** Every broken engine whose index falls in shard `shard` of SHARDS, each as its own kit suite. */
export function describeBrokenShard(shard: number): void {
  // The outsiders (written from scratch, not on the reference engine) run through the same kit.
  const all = [
    ...BROKEN_ENGINES,
    ...MORE_BROKEN_ENGINES,
    ...RULE_BROKEN_ENGINES,
    ...STATE_BROKEN_ENGINES,
    ...PIN_BROKEN_ENGINES,
    ...OUTSIDER_ENGINES,
    ...OUTSIDER_ENGINES_2,
  ];
  all.forEach((broken, i) => {
    if (i % SHARDS !== shard) return;
    describeContextEngineContract({
      name: "reference",
      suiteName: `broken:${broken.defect}`,
      createEngine: broken.create,
      abortGraceMs: 300,
    });
  });
}
