import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startChatServer } from "./helpers/chat-server.js";
import { runBin, sandbox } from "./helpers/run-bin.js";

type Line = Record<string, unknown>;
const header = (id: string): Line => ({ type: "session", id, startedAt: "2026-01-01T00:00:00.000Z", model: "gpt-4o-mini", engine: "compressor", cwd: "/w" });
const said = (role: string, content: string): Line => ({ type: "message", at: "2026-01-01T00:00:01.000Z", message: { role, content } });
const ledgerEntry = (id: string, sessionId: string): Line => ({
  kind: "pin", id, sessionId, at: "2026-01-01T00:00:02.000Z", pinId: "p1", text: "token=[REDACTED]", blockTokens: 12,
});

/** A sandbox whose home holds the given chats (transcript lines, and ledger lines when given). */
function withChats(chats: Array<{ id: string; lines?: Line[]; raw?: string; ledger?: string }>) {
  const s = sandbox();
  const dir = join(s.home, "chats");
  mkdirSync(dir, { recursive: true });
  for (const c of chats) {
    const lines = c.lines ?? [header(c.id), said("user", `hello from ${c.id}`), said("assistant", "hi")];
    writeFileSync(join(dir, `${c.id}.jsonl`), c.raw ?? `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    if (c.ledger !== undefined) writeFileSync(join(dir, `${c.id}.ledger.jsonl`), c.ledger);
  }
  return s;
}

describe("context-engine chat export", () => {
  it("writes one JSON document with the transcript lines and the ledger entries as stored, by id or prefix", async () => {
    const lines = [header("9d9a0001"), said("user", "remember the key"), said("assistant", "noted")];
    const ledger = [ledgerEntry("L1", "9d9a0001"), ledgerEntry("L2", "9d9a0001")];
    const s = withChats([{ id: "9d9a0001", lines, ledger: `${ledger.map((l) => JSON.stringify(l)).join("\n")}\n` }, { id: "f00d0002" }]);
    const r = await runBin(["chat", "export", "9d9"], s);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format: "context-engine.chat-export", version: 1, id: "9d9a0001" });
    expect(doc.transcript).toEqual(lines);
    expect(doc.ledger).toEqual(ledger);
    expect(Number.isFinite(Date.parse(doc.exportedAt))).toBe(true);
  });

  it("--out writes the file (owner-only) and says where; a chat without a ledger exports an empty one", async () => {
    const s = withChats([{ id: "abc123" }]);
    const r = await runBin(["chat", "export", "abc123", "--out", "chat.json"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    const file = join(s.cwd, "chat.json");
    expect(r.stderr).toContain(`Exported chat abc123 to ${file}`);
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(doc.ledger).toEqual([]);
    expect(doc.transcript[1].message.content).toBe("hello from abc123");
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it("a missing id is named with the closest saved id; no id, an ambiguous prefix and a path are usage errors", async () => {
    const s = withChats([{ id: "chat-alpha" }, { id: "chat-beta" }]);
    const missing = await runBin(["chat", "export", "chat-alpah"], s);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no saved chat "chat-alpah"');
    expect(missing.stderr).toContain("Did you mean 'chat-alpha'?");
    const far = await runBin(["chat", "export", "zzzzzz"], s);
    expect(far.code).toBe(4);
    expect(far.stderr).toContain("chat --list");
    const none = await runBin(["chat", "export"], s);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("missing the chat id");
    const ambiguous = await runBin(["chat", "export", "chat-"], s);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("matches 2 chats");
    const path = await runBin(["chat", "export", "../etc/passwd"], s);
    expect(path.code).toBe(2);
    expect(path.stderr).toContain("a path, not a chat id");
  });

  it("a damaged transcript or ledger is an error naming the file and line, and nothing is written", async () => {
    const s = withChats([
      { id: "bad-ledger", ledger: `${JSON.stringify(ledgerEntry("L1", "bad-ledger"))}\n{"kind":"compaction"}\n` },
      { id: "bad-transcript", raw: `${JSON.stringify(header("bad-transcript"))}\n{"type":"message","message":{"role":"wizard"}}\n` },
    ]);
    const ledger = await runBin(["chat", "export", "bad-ledger", "--out", "x.json"], s);
    expect(ledger.code).toBe(4);
    expect(ledger.stderr).toMatch(/bad-ledger\.ledger\.jsonl: line 2: not a ledger entry \(id: /);
    const transcript = await runBin(["chat", "export", "bad-transcript", "--out", "x.json"], s);
    expect(transcript.code).toBe(4);
    expect(transcript.stderr).toMatch(/bad-transcript\.jsonl: line 2: not a valid message line/);
    expect(() => statSync(join(s.cwd, "x.json"))).toThrow();
  });

  it("--help shows the usage; `chat -- export` still sends the word as a message", async () => {
    const s = sandbox();
    const help = await runBin(["chat", "export", "--help"], s);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("context-engine chat export <id> [--out FILE]");
    const chatHelp = await runBin(["chat", "--help"], s);
    expect(chatHelp.stdout).toContain("chat export <id>");
    const server = await startChatServer();
    try {
      writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\n`);
      const sent = await runBin(["chat", "--no-save", "--", "export"], s);
      expect(sent.code, sent.stderr).toBe(0);
      expect(server.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual(["export"]);
    } finally {
      await server.close();
    }
  });
});

describe("chat retention through the binary (config.yaml chat.keep_days)", () => {
  it("a chat that starts removes transcripts past the bound with their ledgers, never the one resumed; a bad bound names its field", async () => {
    const s = withChats([
      { id: "old1", ledger: "" },
      { id: "old2", ledger: "" },
      { id: "newer", ledger: "" },
    ]);
    const dir = join(s.home, "chats");
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    for (const id of ["old1", "old2"]) utimesSync(join(dir, `${id}.jsonl`), longAgo, longAgo);
    const server = await startChatServer();
    try {
      writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\nchat:\n  keep_days: 30\n`);
      const resumed = await runBin(["chat", "--resume", "old1", "hi"], s);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(existsSync(join(dir, "old1.jsonl"))).toBe(true);
      expect(existsSync(join(dir, "old2.jsonl"))).toBe(false);
      expect(existsSync(join(dir, "old2.ledger.jsonl"))).toBe(false);
      expect(existsSync(join(dir, "newer.jsonl"))).toBe(true);
      expect(existsSync(join(dir, "newer.ledger.jsonl"))).toBe(true);

      writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\nchat:\n  keep_days: -3\n`);
      const bad = await runBin(["chat", "--no-save", "hi"], s);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/config\.yaml.*chat\.keep_days/);
    } finally {
      await server.close();
    }
  });
});
