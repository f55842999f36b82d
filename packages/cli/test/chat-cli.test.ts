import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { runBin, sandbox } from "./helpers/run-bin.js";

const NO_STACK = /^\s+at .+\(.*:\d+:\d+\)$/m;
let server: ChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("context-engine chat (built binary, piped stdin)", () => {
  it("without an endpoint says exactly what to set and exits 5 without a stack trace", async () => {
    const s = sandbox();
    const r = await runBin(["chat"], { ...s, input: "hello\n" });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("no model endpoint configured");
    for (const key of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "model:", "base_url:"]) expect(r.stderr).toContain(key);
    expect(r.stderr).not.toMatch(NO_STACK);
    // A model alone is not an endpoint either.
    const modelOnly = await runBin(["chat"], { ...s, env: { ...s.env, OPENAI_MODEL: "gpt-4o-mini" }, input: "hello\n" });
    expect(modelOnly.code, modelOnly.stderr).toBe(5);
    expect(modelOnly.stderr).toContain("neither a base URL nor an API key is set");
  });

  it("chats with the compressor, runs the slash commands and shows compactions", async () => {
    // Long answers, so a manual compaction has something to summarise.
    const filler = Array.from({ length: 40 }, (_, i) => `Detail ${i}: the release checklist item ${i} is signed off by team ${i % 5}.`).join("\n");
    server = await startChatServer((req) => {
      const last = req.body.messages.at(-1)!;
      if (last.role !== "user") return null;
      return completion({ content: `echo: ${String(last.content).slice(0, 200)}\n${filler}` });
    });
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: scripted-model\n  base_url: ${server.url}\n  context_length: 32000\ncompression:\n  protect_first_n: 1\n  protect_last_n: 2\n`);
    const lines = [
      "first question about the alpha release",
      "second question about the beta branch",
      "third question about the gamma build",
      "fourth question about the delta fix",
      "/status",
      "/compress alpha",
      "/engine",
      "/model other-model 64000",
      "after the switch",
      "/new",
      "fresh start",
      "/bogus",
    ];
    const r = await runBin(["chat"], { ...s, env: { ...s.env, OPENAI_API_KEY: "sk-test" }, input: `${lines.join("\n")}\n` });
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("echo: first question about the alpha release");
    expect(r.stdout).toContain("echo: fourth question about the delta fix");
    expect(r.stdout).toMatch(/Context window\s+32,000 tokens\n/);
    expect(r.stdout).toMatch(/Estimated tokens\s+~[\d,]+ \([\d.]+% of the window\)/);
    expect(r.stdout).toMatch(/Compacted: \d+ → \d+ messages/);
    expect(r.stderr).toMatch(/⟳ compacting \(manual, focus “alpha”\)/);
    // The result is said once, by /compress itself, not again by the compaction event.
    expect(r.stdout.match(/Compacted: /g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/✔ compacted/);
    expect(r.stdout).toMatch(/Context engine\s+compressor .*\(builtin\)/);
    expect(r.stdout).toMatch(/Tools\s+none/);
    expect(r.stdout).toContain("Model: other-model (context window 64,000 tokens).");
    expect(r.stdout).toContain("echo: after the switch");
    expect(r.stdout).toMatch(/Started a new conversation/);
    expect(r.stdout).toContain("Unknown command /bogus");
    // The key went out as a bearer token; the switched model was used; /new dropped the history.
    expect(server.requests[0]!.authorization).toBe("Bearer sk-test");
    const afterSwitch = server.requests.find((q) => JSON.stringify(q.body.messages).includes("after the switch"))!;
    expect(afterSwitch.body.model).toBe("other-model");
    const fresh = server.requests.at(-1)!;
    expect(fresh.body.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["fresh start"]);
  });

  it("shows an engine tool call (lcm_grep) as it happens", async () => {
    server = await startChatServer((req) => {
      const last = req.body.messages.at(-1)!;
      if (last.role === "user" && String(last.content).includes("search")) {
        return completion({ content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lcm_grep", arguments: '{"query":"alpha"}' } }] });
      }
      if (last.role === "tool") return completion({ content: "I searched the history." });
      return null;
    });
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), `context:\n  engine: lcm\nmodel:\n  name: scripted-model\n  base_url: ${server.url}\n`);
    const r = await runBin(["chat"], { ...s, input: "the alpha value is 42\nplease search for it\n/engine\n" });
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/engine lcm/);
    expect(r.stderr).toMatch(/⚙ lcm_grep\("query":"alpha"\) → ok/);
    expect(r.stdout).toContain("I searched the history.");
    expect(r.stdout).toMatch(/Context engine\s+lcm .*\(bundled\)/);
    expect(r.stdout).toMatch(/Tools\s+lcm_grep, lcm_describe, lcm_expand/);
    // Readable: words for keys, dates for timestamps.
    const engineRows = r.stdout.slice(r.stdout.indexOf("Context engine"));
    expect(engineRows).not.toMatch(/^\s*[a-z]+[A-Z]\w*\s/m);
    expect(engineRows).not.toMatch(/\b1,\d{3},\d{3},\d{3},\d{3}\b/);
    // The engine's tools were offered to the model.
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(expect.arrayContaining(["lcm_grep", "lcm_expand"]));
    const toolResult = server.requests[2]!.body.messages.at(-1)!;
    expect(toolResult.role).toBe("tool");
    expect(String(toolResult.content)).toContain("alpha");
  });

  it("a rejected API key ends the turn with the reason and exit 5", async () => {
    server = await startChatServer(() => ({ status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } }));
    const s = sandbox();
    const r = await runBin(["chat"], { ...s, env: { ...s.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-wrong", OPENAI_MODEL: "m" }, input: "hello\n" });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("✖ The server rejected the API key (HTTP 401).");
    expect(r.stderr).toContain("Check OPENAI_API_KEY");
    // Once, in plain words: no raw log line with a JSON tail.
    expect(r.stderr.match(/Incorrect API key provided/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\[error\]|\{"sessionId"/);
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it("an unknown engine named in config.yaml is a config error (exit 3); from --engine a usage error (exit 2)", async () => {
    server = await startChatServer();
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), `context:\n  engine: nope\nmodel:\n  name: m\n  base_url: ${server.url}\n`);
    const fromConfig = await runBin(["chat"], { ...s, input: "" });
    expect(fromConfig.code, fromConfig.stderr).toBe(3);
    expect(fromConfig.stderr).toMatch(/cannot load context engine "nope".*available engines: compressor, lcm/);
    const fromFlag = await runBin(["chat", "--engine", "nada", "--config", "config.yaml"], { ...s, input: "" });
    expect(fromFlag.code, fromFlag.stderr).toBe(2);
    expect(fromFlag.stderr).toMatch(/cannot load context engine "nada"/);
  });
});
