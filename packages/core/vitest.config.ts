import { packageTests, typeTests } from "../../tooling/vitest.base.ts";

export default packageTests({ typecheck: typeTests });
