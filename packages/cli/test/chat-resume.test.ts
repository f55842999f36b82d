import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { runBin, sandbox } from "./helpers/run-bin.js";

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

type Line = Record<string, unknown>;
const message = (role: string, content: string): Line => ({ type: "message", at: "2026-01-01T00:00:01.000Z", message: { role, content } });

/** A sandbox with a config pointing at a loopback model and hand-written transcripts (oldest first). */
async function withChats(chats: Array<{ file: string; header?: Line; lines?: Line[]; raw?: string }>) {
  server = await startChatServer();
  const s = sandbox();
  writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\n`);
  const dir = join(s.home, "chats");
  mkdirSync(dir, { recursive: true });
  chats.forEach((c, i) => {
    const id = c.file.replace(/\.jsonl$/, "");
    const header = c.header ?? { type: "session", id, startedAt: "2026-01-01T00:00:00.000Z", model: "gpt-4o-mini", engine: "compressor", cwd: s.cwd };
    const lines = c.lines ?? [message("user", `hello from ${id}`), message("assistant", `echo: hello from ${id}`)];
    const path = join(dir, c.file);
    writeFileSync(path, c.raw ?? `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`);
    const t = new Date(Date.UTC(2026, 0, 1, 0, i));
    utimesSync(path, t, t);
  });
  return s;
}

describe("chat --resume <id|prefix> \"message\"", () => {
  it("takes a short prefix as the id and sends the message into that chat, not the newest", async () => {
    const s = await withChats([{ file: "9d9a0001.jsonl" }, { file: "f00d0002.jsonl" }]);
    const r = await runBin(["chat", "--resume", "9d9", "continue please"], s);
    expect(r.code, r.stderr).toBe(0);
    const sent = server!.requests.at(-1)!.body.messages.map((m) => m.content);
    expect(sent).toEqual(["hello from 9d9a0001", "echo: hello from 9d9a0001", "continue please"]);
  });

  it("refuses an ambiguous prefix with the candidates, and a path, before anything is sent", async () => {
    const s = await withChats([{ file: "9d9a0001.jsonl" }, { file: "9d9b0002.jsonl" }]);
    const ambiguous = await runBin(["chat", "--resume", "9d9", "continue please"], s);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('"9d9" matches 2 chats');
    expect(ambiguous.stderr).toMatch(/Candidates: 9d9b0002, 9d9a0001/);
    for (const value of ["../9d9a0001", "/etc/passwd", "chats/9d9a0001.jsonl", "~/x"]) {
      const r = await runBin(["chat", "--resume", value, "continue please"], s);
      expect(r.code, `${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain("a path, not a chat id");
    }
    expect(server!.requests).toHaveLength(0);
  });

  it("a transcript whose header names another chat, or holding an invalid message, is a clear error", async () => {
    const s = await withChats([
      { file: "aaaa0001.jsonl", header: { type: "session", id: "bbbb0002", startedAt: "x", model: "m", engine: "compressor" } },
      { file: "cccc0003.jsonl", lines: [message("user", "hi"), { type: "message", message: { role: "tool", content: "no call id" } }] },
      { file: "dddd0004.jsonl", raw: "not json at all\n" },
    ]);
    const renamed = await runBin(["chat", "--resume", "aaaa", "hi"], s);
    expect(renamed.code).toBe(4);
    expect(renamed.stderr).toMatch(/chat aaaa0001 cannot be resumed: .*aaaa0001\.jsonl says it is chat "bbbb0002"/);
    const invalid = await runBin(["chat", "--resume", "cccc", "hi"], s);
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toMatch(/cccc0003\.jsonl: line 3: not a valid message line \(message\.tool_call_id/);
    const garbage = await runBin(["chat", "--resume", "dddd", "hi"], s);
    expect(garbage.code).toBe(4);
    expect(garbage.stderr).toContain("line 1: expected a chat transcript header");
    for (const r of [renamed, invalid, garbage]) expect(r.stderr).not.toContain("This is a bug");
    expect(server!.requests).toHaveLength(0);
  });

  it("continues with the engine the chat used (lcm), or says why it cannot", async () => {
    const lcmHeader = (id: string, engine: string) => ({ type: "session", id, startedAt: "2026-01-01T00:00:00.000Z", model: "gpt-4o-mini", engine, cwd: "/" });
    const s = await withChats([{ file: "1cm00001.jsonl", header: lcmHeader("1cm00001", "lcm") }, { file: "9one0002.jsonl", header: lcmHeader("9one0002", "no-such-engine") }]);
    const r = await runBin(["chat", "--resume", "1cm", "and now?"], s);
    expect(r.code, r.stderr).toBe(0);
    const tools = (server!.requests.at(-1)!.body.tools ?? []).map((t) => t.function.name);
    expect(tools).toContain("lcm_grep");
    const gone = await runBin(["chat", "--resume", "9one", "and now?"], s);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('chat 9one0002 used the no-such-engine engine, which cannot be loaded here');
    expect(gone.stderr).toContain("--engine <name>");
  });

  it("a chat resumed into another engine hands it the transcript's times, not the time of the resume", async () => {
    const s = await withChats([{ file: "5w170001.jsonl" }]);
    const r = await runBin(["chat", "--resume", "5w17", "--engine", "lcm", "and now?"], s);
    expect(r.code, r.stderr).toBe(0);
    const out = await runBin(["lcm", "export", "--session", "5w170001", "--out", "x.json"], s);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(s.cwd, "x.json"), "utf8")) as { messages: Array<{ message: { content: unknown }; createdAt: number }> };
    const said = (text: string) => doc.messages.find((m) => m.message.content === text)?.createdAt;
    // The history keeps the transcript's times; what was said now is stamped now.
    expect(said("hello from 5w170001")).toBe(Date.parse("2026-01-01T00:00:01.000Z"));
    expect(said("echo: hello from 5w170001")).toBe(Date.parse("2026-01-01T00:00:01.000Z"));
    expect(said("and now?")).toBeGreaterThan(Date.parse("2026-06-01T00:00:00.000Z"));
  });

  it("replay reads the CLI's own chat transcripts", async () => {
    const s = await withChats([{ file: "7ee70001.jsonl" }]);
    const r = await runBin(["replay", join(s.home, "chats", "7ee70001.jsonl"), "-e", "compressor", "--no-report", "--no-progress"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("7ee70001 (openai-jsonl, 2 messages");
  });

  it("chat --list fits the terminal width", async () => {
    const long = "a first message long enough to run past any narrow terminal, with more words after it";
    const s = await withChats([{ file: "5157a001.jsonl", lines: [message("user", long), message("assistant", "ok")] }]);
    const r = await runBin(["chat", "--list"], { ...s, env: { ...s.env, COLUMNS: "70" } });
    expect(r.code, r.stderr).toBe(0);
    for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(70);
    // Too narrow for every column whole: one block per chat, nothing cut to "gpt…".
    expect(r.stdout).toMatch(/5157a001 .*\n  gpt-4o-mini · compressor · 2 messages\n  “a first message long enough/);
  });
});
