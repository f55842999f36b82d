import { packageTests } from "../../tooling/vitest.base.ts";

export default packageTests({
  globalSetup: ["test/helpers/global-setup.ts"],
  // Most of the time goes to waiting on the spawned CLI and Chromium; two files at once use both cores.
  maxWorkers: 2,
  testTimeout: 30_000,
});
