import { packageBuild } from "../../tooling/tsdown.base.ts";

export default packageBuild({ entry: ["src/index.ts", "src/bin.ts"] });
