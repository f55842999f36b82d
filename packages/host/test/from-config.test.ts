import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHostFromConfig } from "../src/index.js";
import type { FakeOpenAIServer } from "./support/fake-openai-server.js";
import { startServer } from "./support/setup.js";

let server: FakeOpenAIServer;
const dir = mkdtempSync(join(tmpdir(), "ce-host-config-"));
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("createHostFromConfig", () => {
  it("builds the model, the engine and the host from config.yaml", async () => {
    writeFileSync(
      join(dir, "config.yaml"),
      [
        "context:",
        "  engine: compressor",
        "model:",
        "  name: configured-model",
        `  base_url: ${server.baseURL}`,
        "  context_length: 32000",
        "compression:",
        "  context_timeout_seconds: 9",
        '  model_thresholds: { "configured": 0.6 }',
      ].join("\n"),
    );
    server.reset().script([{ content: "from config" }]);
    const built = await createHostFromConfig({ cwd: dir, home: dir, env: { OPENAI_API_KEY: server.apiKey } });
    expect(built.loaded.name).toBe("compressor");
    expect(built.model).toMatchObject({ model: "configured-model", contextLength: 32_000, apiKey: server.apiKey });
    expect(built.host.config.contextTimeoutSeconds).toBe(9);
    const session = await built.openSession({ systemPrompt: "sys" });
    expect(built.loaded.engine.thresholdTokens).toBe(Math.floor(32_000 * 0.6));
    const result = await session.send("hi");
    expect(result.text).toBe("from config");
    expect(server.requests[0]!.body.model).toBe("configured-model");
    await built.host.close();
  });

  it("says what is missing when there is no API key", async () => {
    writeFileSync(join(dir, "config.yaml"), "model:\n  name: m\n");
    await expect(createHostFromConfig({ cwd: dir, home: dir, env: {} })).rejects.toThrow(/OPENAI_API_KEY/);
  });
});
