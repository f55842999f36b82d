import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests();
