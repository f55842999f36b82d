import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, startChatServer, type ChatServer, type ChatServerOptions, type Script } from "./helpers/chat-server.js";
import { runBin, sandbox } from "./helpers/run-bin.js";

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function setUp(script: Script = () => null, config = "", options: ChatServerOptions = {}) {
  server = await startChatServer(script, options);
  const s = sandbox();
  writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\n${config}`);
  return s;
}

describe("chat: failures are said once, in plain words", () => {
  it("HTTP 500 is a server error (not 'overloaded'), with what to do, exit 5", async () => {
    const s = await setUp(() => ({ status: 500, body: { error: { message: "boom in the model runner", type: "server_error" } } }), "host:\n  max_retries: 0\n");
    const r = await runBin(["chat"], { ...s, input: "hello\n" });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("✖ The server had an internal error (HTTP 500)");
    expect(r.stderr).toContain("look at the server's own log");
    expect(r.stderr).not.toMatch(/overloaded/i);
    expect(r.stderr.match(/boom in the model runner/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\[(error|warn)\]/);
  });

  it("a retried 500 is one plain notice, then the answer; //text sends a leading slash", async () => {
    const s = await setUp((_req, i) => (i === 0 ? { status: 500, body: { error: { message: "flaky", type: "server_error" } } } : null), "host:\n  max_retries: 1\n");
    const r = await runBin(["chat"], { ...s, input: "hello\n//etc/hosts is a path\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/⚠ the server had an internal error \(HTTP 500\); retrying in [\d.]+ (ms|s)…/);
    expect(r.stderr).not.toContain("✖");
    expect(r.stdout).toContain("echo: hello");
    expect(r.stdout).toContain("echo: /etc/hosts is a path");
    // No terminal: no spinner, no live status line.
    expect(r.stderr).not.toMatch(/thinking…|\r/);
  });

  it("a reply that is not JSON says so plainly", async () => {
    const s = await setUp(() => ({ body: null, raw: { text: "<html><h1>Welcome to nginx!</h1></html>", type: "text/html" } }));
    const r = await runBin(["chat"], { ...s, input: "hello\n" });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/answered with text that is not JSON \(it begins “<html><h1>Welcome to nginx!/);
    expect(r.stderr).toContain("/v1");
    expect(r.stderr).not.toMatch(/expected object|Invalid input/);
  });

  it("model.request_timeout_seconds bounds a request; the message names the setting", async () => {
    const s = await setUp(() => ({ stall: "thinking" }), "  request_timeout_seconds: 1\nhost:\n  max_retries: 0\n");
    const r = await runBin(["chat"], { ...s, input: "hello\n" });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("did not answer within 1 s");
    expect(r.stderr).toContain("model.request_timeout_seconds");
  });

  it("an engine tool answering {error: …} is shown as an error, not → ok", async () => {
    const s = await setUp((req) => {
      const last = req.body.messages.at(-1)!;
      if (last.role === "user") return completion({ content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lcm_expand", arguments: '{"id":"sum_00000000000000aa"}' } }] });
      return completion({ content: "could not expand" });
    }, "context:\n  engine: lcm\n");
    writeFileSync(join(s.cwd, "config.yaml"), readFileSync(join(s.cwd, "config.yaml"), "utf8").replace("model:", "context:\n  engine: lcm\nmodel:").replace(/context:\n  engine: lcm\n$/, ""));
    const r = await runBin(["chat"], { ...s, input: "expand it\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/⚙ lcm_expand\("id":"sum_00000000000000aa"\) → error: lcm_expand: no summary/);
    expect(r.stderr).not.toMatch(/lcm_expand.*→ ok/);
  });
});

describe("chat: windows, streaming fallback, tables", () => {
  it("an unknown model's window is marked as a guess; model.context_length sets it (context_window too, with a note)", async () => {
    server = await startChatServer();
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: my-own-model\n  base_url: ${server.url}\n`);
    const guess = await runBin(["chat"], { ...s, input: "/status\n" });
    expect(guess.code, guess.stderr).toBe(0);
    expect(guess.stdout).toMatch(/Context window\s+128,000 tokens \(a guess/);
    expect(guess.stderr).toContain("my-own-model is not in the built-in table");
    writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: my-own-model\n  base_url: ${server.url}\n  context_window: 32768\n`);
    const set = await runBin(["chat"], { ...s, input: "/status\n" });
    expect(set.stdout).toMatch(/Context window\s+32,768 tokens\n/);
    expect(set.stdout).toMatch(/Window from\s+.*model\.context_length/);
    expect(set.stderr).toMatch(/model\.context_window is read as model\.context_length/);
    const known = await runBin(["chat", "--model", "claude-sonnet-4-5"], { ...s, input: "/status\n" });
    expect(known.stdout).toMatch(/Context window\s+32,768 tokens/);
    // After /model, the window follows the new model: known from the table, given, or a guess.
    const switched = await runBin(["chat"], { ...s, input: "/model gpt-4o\n/status\n/model another-unknown\n/status\n/model another-unknown 50000\n/status\n" });
    const windows = [...switched.stdout.matchAll(/Context window\s+(.+)\n/g)].map((m) => m[1]);
    expect(windows).toEqual(["128,000 tokens", expect.stringMatching(/^128,000 tokens \(a guess/), "50,000 tokens"]);
  });

  it("streams by default; a server that refuses streaming still answers, and /status says streaming is off", async () => {
    const s = await setUp(undefined, "", { streaming: "refuse" });
    const r = await runBin(["chat"], { ...s, input: "hello\n/status\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("echo: hello");
    expect(r.stdout).toMatch(/Streaming\s+off \(the server refused it\)/);
    expect(server!.requests.map((q) => (q.body as { stream?: boolean }).stream ?? false)).toEqual([true, false]);
  });

  it("/context shows the parts and tokens; /compactions shows what a compaction removed and its summary", async () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Line ${i}: the deploy step ${i} passed on host ${i % 3}.`).join("\n");
    const s = await setUp((req) => {
      const last = req.body.messages.at(-1)!;
      if (last.role !== "user") return null;
      return completion({ content: `echo: ${String(last.content).slice(0, 60)}\n${filler}` });
    }, "  context_length: 32000\ncompression:\n  protect_first_n: 1\n  protect_last_n: 2\n");
    const input = ["first about alpha", "second about beta", "third about gamma", "fourth about delta", "/compress", "/compactions", "/compactions 1", "/context", "/expand sum_1"].join("\n");
    const r = await runBin(["chat"], { ...s, input: `${input}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/#\s+trigger\s+tokens\s+messages\s+removed/);
    expect(r.stdout).toMatch(/1\s+manual\s+~[\d,]+ → ~[\d,]+/);
    expect(r.stdout).toMatch(/Compaction #1 \(manual: \/compress, \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(r.stdout).toMatch(/Removed from the context \([1-9]\d*\):\n  - (user|assistant): /);
    expect(r.stdout).toMatch(/Put in its place \([1-9]\d*\):\n  \| /);
    expect(r.stdout).toContain("What the model sees next");
    expect(r.stdout).toMatch(/summaries\s+1\s+[\d,]+\s+[\d.]+%/);
    expect(r.stdout).toMatch(/total\s+\d+\s+[\d,]+\s+100%/);
    expect(r.stdout).toContain("keeps no originals to expand");
  });
});

describe("chat: transcripts, resume, list, one-shot", () => {
  it("saves each chat under the home, lists it, and --resume sends the history again", async () => {
    const s = await setUp();
    const first = await runBin(["chat"], { ...s, input: "remember the code word falcon\n" });
    expect(first.code, first.stderr).toBe(0);
    const files = readdirSync(join(s.home, "chats"));
    expect(files).toHaveLength(1);
    const id = files[0]!.replace(/\.jsonl$/, "");
    const lines = readFileSync(join(s.home, "chats", files[0]!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", id, model: "gpt-4o-mini", engine: "compressor" });
    expect(lines.slice(1).map((l) => l.message.role)).toEqual(["user", "assistant"]);

    const list = await runBin(["chat", "--list"], s);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+gpt-4o-mini\\s+compressor\\s+2\\s+remember the code word falcon`));

    const resumed = await runBin(["chat", "--resume", id.slice(0, 8)], { ...s, input: "what was the code word?\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Resumed chat ${id} (2 messages)`);
    const sent = server!.requests.at(-1)!.body.messages.map((m) => m.content);
    expect(sent).toEqual(["remember the code word falcon", "echo: remember the code word falcon", "what was the code word?"]);
    // The same transcript grew.
    expect(readdirSync(join(s.home, "chats"))).toHaveLength(1);
    const latest = await runBin(["chat", "--resume"], { ...s, input: "" });
    expect(latest.stderr).toContain(`Resumed chat ${id} (4 messages)`);
    const missing = await runBin(["chat", "--resume", "nope-nope"], { ...s, input: "" });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("chat --list");
  });

  it("chat \"question\" answers once on stdout and exits 0; piped stdin joins the question as one message", async () => {
    const s = await setUp();
    const once = await runBin(["chat", "what is 2+2?"], s);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).toBe("echo: what is 2+2?\n");
    const piped = await runBin(["chat", "Summarise:"], { ...s, input: "def f():\n    return 1\n" });
    expect(piped.code, piped.stderr).toBe(0);
    expect(server!.requests.at(-1)!.body.messages.at(-1)!.content).toBe("Summarise:\n\ndef f():\n    return 1");
    const dash = await runBin(["chat", "-"], { ...s, input: "  indented\n  block\n" });
    expect(server!.requests.at(-1)!.body.messages.at(-1)!.content).toBe("  indented\n  block");
    expect(dash.code).toBe(0);
    const empty = await runBin(["chat", "-"], { ...s, input: "" });
    expect(empty.code).toBe(4);
  });

  it("piped lines: a trailing backslash continues, /multi … /end is one message with its indentation", async () => {
    const s = await setUp();
    const r = await runBin(["chat"], { ...s, input: "first line \\\n  second line\n/multi\nclass A:\n    x = 1\n/end\n" });
    expect(r.code, r.stderr).toBe(0);
    const users = server!.requests.map((q) => q.body.messages.at(-1)!.content);
    expect(users).toEqual(["first line \n  second line", "class A:\n    x = 1"]);
  });
});

describe("chat: a failed or cancelled question is not kept", () => {
  it("sending a failed message again does not duplicate it, in the request or the transcript", async () => {
    const s = await setUp((_req, i) => (i === 0 ? { status: 500, body: { error: { message: "boom", type: "server_error" } } } : null), "host:\n  max_retries: 0\n");
    const r = await runBin(["chat"], { ...s, input: "hello\nhello\n" });
    expect(r.stderr).toContain("not kept in the conversation");
    expect(server!.requests.map((q) => q.body.messages.map((m) => m.content))).toEqual([["hello"], ["hello"]]);
    const file = readdirSync(join(s.home, "chats"))[0]!;
    const saved = readFileSync(join(s.home, "chats", file), "utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l).message.content);
    expect(saved).toEqual(["hello", "echo: hello"]);
  });

  it("a partial answer is reported, not silently dropped", async () => {
    const s = await setUp((_req, i) => (i === 0 ? { stall: "The answer is" } : null), "  request_timeout_seconds: 1\nhost:\n  max_retries: 0\n");
    const r = await runBin(["chat"], { ...s, input: "question\nquestion\n" });
    expect(r.stdout).toContain("The answer is");
    expect(r.stderr).toMatch(/the answer above is partial \(13 characters streamed before the turn ended\)/);
    expect(server!.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual(["question"]);
  });
});
