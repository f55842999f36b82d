import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ReplayReport } from "../src/replay/report.js";
import { startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { FIXTURES, runBin, sandbox } from "./helpers/run-bin.js";

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("context-engine replay --live-summaries (built binary)", () => {
  it("engines summarise through the configured endpoint; the recorded answers still drive the agent", async () => {
    server = await startChatServer();
    const s = sandbox();
    const r = await runBin(
      ["replay", join(FIXTURES, "debug-session.jsonl"), "-e", "compressor", "-n", "3000", "--live-summaries", "--json", "--no-report"],
      { ...s, env: { ...s.env, OPENAI_BASE_URL: server.url, OPENAI_MODEL: "summary-model" } },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as ReplayReport;
    const run = report.sessions[0]!.runs[0]!;
    expect(run.summary.compactions).toBeGreaterThan(0);
    // Only summary calls reach the server (the agent's answers come from the recording).
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((q) => q.body.model === "summary-model")).toBe(true);
    expect(server.requests.length).toBeLessThan(run.summary.requests);
  });

  it("without an endpoint it says what to set and exits 5", async () => {
    const s = sandbox();
    const r = await runBin(["replay", "--demo", "--live-summaries", "--no-report"], s);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("--live-summaries needs a model endpoint");
    expect(r.stderr).toContain("OPENAI_BASE_URL");
  });
});
