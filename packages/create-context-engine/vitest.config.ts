import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests({ include: ["test/**/*.test.ts"] });
