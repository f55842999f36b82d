import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests({ include: ["test/**/*.test.ts"], testTimeout: 480_000, hookTimeout: 120_000 });
