import { packageBuild } from "../../tooling/tsdown.base.ts";

export default packageBuild();
