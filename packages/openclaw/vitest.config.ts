import { fileURLToPath } from "node:url";
import { packageTests } from "../../tooling/vitest.base.ts";

// The lcm-plugin directory imports this package by name, as an installed OpenClaw plugin would.
export default packageTests({
  alias: { "@context-engine/openclaw": fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
});
