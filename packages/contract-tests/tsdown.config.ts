import { packageBuild } from "../../tooling/tsdown.base.ts";

export default packageBuild({
  // Two entries: the kit (imports vitest) and the vitest-free fixtures.
  entry: ["src/index.ts", "src/fixtures.ts"],
  // vitest is a peer dependency: the engine author's copy must run the suites.
  deps: { neverBundle: [/^vitest/, /^@context-engine\//] },
});
