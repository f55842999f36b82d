#!/usr/bin/env node
// `pnpm test` runs the real-OpenClaw scenario only where it is asked for (CI sets CONTEXT_ENGINE_E2E=1):
// it installs OpenClaw from npm and runs a few turns of 15–200 s each.
import { spawnSync } from "node:child_process";

if (process.env.CONTEXT_ENGINE_E2E !== "1") {
  console.log("[openclaw] real-OpenClaw e2e skipped (set CONTEXT_ENGINE_E2E=1 to run it)");
  process.exit(0);
}
const r = spawnSync("node", ["../../scripts/with-node.mjs", "24", "vitest", "run", "--config", "vitest.e2e.config.ts"], { stdio: "inherit" });
process.exit(r.status ?? 1);
