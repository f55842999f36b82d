import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests({ testTimeout: 60_000 });
