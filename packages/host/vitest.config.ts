import { packageTests, typeTests } from "../../tooling/vitest.base.ts";

// Test files share nothing but read-only caches; one module graph per worker halves the run.
export default packageTests({ isolate: false, typecheck: typeTests });
