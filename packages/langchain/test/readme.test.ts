import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Every chat-completions request body the loopback server received. */
const bodies: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (chunk) => (raw += chunk));
  req.on("end", () => {
    bodies.push(JSON.parse(raw));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${bodies.length}`,
        object: "chat.completion",
        created: 0,
        model: "gpt-4.1-mini",
        choices: [{ index: 0, message: { role: "assistant", content: `answer ${bodies.length}` }, finish_reason: "stop" }],
        usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
      }),
    );
  });
});

const saved = { cwd: process.cwd(), base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };
let dir = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.OPENAI_API_KEY = "test-key";
  // The example writes LCM's database to ./lcm: run it in a scratch directory.
  dir = mkdtempSync(join(tmpdir(), "langchain-readme-"));
  process.chdir(dir);
});

afterAll(async () => {
  process.chdir(saved.cwd);
  for (const [key, value] of [["OPENAI_BASE_URL", saved.base], ["OPENAI_API_KEY", saved.key]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("the README quick start, as written", () => {
  it("keeps the thread's conversation: the second question reaches the model with the first turn", async () => {
    const { messages } = await import("./readme/quick-start.js");
    expect(bodies).toHaveLength(2);
    const second = bodies[1]!.messages.map((m) => `${m.role}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
    expect(second).toEqual(["user:I am fixing the login bug.", "assistant:answer 1", "user:Where were we?"]);
    expect(messages.map((m) => m.text)).toEqual(["I am fixing the login bug.", "answer 1", "Where were we?", "answer 2"]);
  });
});
