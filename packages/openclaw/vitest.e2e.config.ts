import { packageTests } from "../../tooling/vitest.base.ts";

// The real OpenClaw from npm, driven through its own CLI (Node 24). Runs only with CONTEXT_ENGINE_OPENCLAW_E2E=1
// (CI's own step sets it); OpenClaw turns take 15–130 s on a loaded machine, so the scenario stays short.
export default packageTests({ include: ["test-e2e/**/*.test.ts"], testTimeout: 45 * 60_000, hookTimeout: 30 * 60_000 });
