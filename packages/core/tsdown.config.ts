import { packageBuild } from "../../tooling/tsdown.base.ts";

// Two entries: the contract and the `./test` helpers (scripted chat model).
export default packageBuild({ entry: { index: "src/index.ts", "test/index": "src/test/index.ts" } });
