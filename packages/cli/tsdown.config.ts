import { packageBuild } from "../../tooling/tsdown.base.ts";

// bin.ts keeps its shebang; index.ts is the library API (report model, replay runner).
export default packageBuild({ entry: ["src/index.ts", "src/bin.ts"] });
