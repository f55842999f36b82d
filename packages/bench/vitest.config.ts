import { defaultServerConditions, mergeConfig } from "vite";
import { packageTests } from "../../tooling/vitest.base.ts";

// Resolve workspace packages to their sources, so the suite's test needs no build of the engines.
const conditions = ["@context-engine/source", ...defaultServerConditions];
export default mergeConfig(packageTests(), { resolve: { conditions }, ssr: { resolve: { conditions } } });
