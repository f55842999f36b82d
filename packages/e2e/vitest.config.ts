import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests({ include: ["test/**/*.test.ts"], testTimeout: 240_000, hookTimeout: 240_000 });
