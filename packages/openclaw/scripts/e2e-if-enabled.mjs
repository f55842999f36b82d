#!/usr/bin/env node
// `pnpm test` runs the real-OpenClaw scenario only where it is asked for (CONTEXT_ENGINE_OPENCLAW_E2E=1):
// it installs OpenClaw from npm and runs three turns of 15–130 s each on a loaded 2-core machine. CI runs
// it as a step of its own (.ci/run: `pnpm --filter @context-engine/openclaw test:e2e`), not inside `pnpm test`.
import { spawnSync } from "node:child_process";

if (process.env.CONTEXT_ENGINE_OPENCLAW_E2E !== "1") {
  console.log("[openclaw] real-OpenClaw e2e skipped (set CONTEXT_ENGINE_OPENCLAW_E2E=1 to run it)");
  process.exit(0);
}
const r = spawnSync("node", ["../../scripts/with-node.mjs", "24", "vitest", "run", "--config", "vitest.e2e.config.ts"], { stdio: "inherit" });
process.exit(r.status ?? 1);
