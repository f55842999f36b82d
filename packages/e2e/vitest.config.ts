import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests({
  include: ["test/**/*.test.ts"],
  globalSetup: ["test/global-setup.ts"],
  // The two files mostly wait on npm and tsc; side by side they take the time of the longer one.
  maxWorkers: 2,
  testTimeout: 480_000,
  hookTimeout: 120_000,
});
