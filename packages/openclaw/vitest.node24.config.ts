import { packageTests } from "../../tooling/vitest.base.ts";

// OpenClaw's own runtime code needs Node >= 24.16; `pnpm test` runs this file set through scripts/with-node.mjs.
export default packageTests({ include: ["test-node24/**/*.test.ts"], testTimeout: 60_000 });
