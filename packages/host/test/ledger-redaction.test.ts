import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { Message } from "@context-engine/core";
import { afterAll, describe, expect, it } from "vitest";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// A planted OpenAI-style key (not a real one): random-looking, the shape the core `openai_key` rule knows.
const KEY = "sk-proj-Q7vXk2LmN9pR4tY8wZ1aB3cD5eF6gH0jK2lM4nP6qR8sT0uV";

function history(): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 10; i++) {
    const ask = i === 3 ? `Use this key for the deploy: ${KEY} and keep it private.` : `question ${i}: ${"words about the topic ".repeat(20)}`;
    out.push({ role: "user", content: ask });
    out.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `f${i}.ts` }) } }] });
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: `contents of f${i}.ts ${"line\n".repeat(30)}` });
    out.push({ role: "assistant", content: `answer ${i}.` });
  }
  return out;
}

async function open(dir: string, saved?: Message[]) {
  const engine = new ContextCompressor({ contextLength: 200_000, model: "test-model", config: { protect_last_n: 4 } });
  const { host } = makeHost(server, { engine, tools: [{ name: "read_file", parameters: { type: "object" } }], executeTool: () => "ok" });
  return host.openSession({ sessionId: "redact-chat", model: "test-model", contextLength: 200_000, systemPrompt: "sys", history: saved ?? history(), ledgerDir: dir });
}

const holds = (messages: readonly Message[], text: string) => JSON.stringify(messages).includes(text);

describe("the ledger file is redacted", () => {
  it("writes no planted secret to disk; undo in the process gives it back exactly, undo after a resume gives the placeholder", async () => {
    server.script(() => ({ content: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "ce-ledger-redact-"));
    dirs.push(dir);
    const session = await open(dir);
    await session.send("first");
    expect((await session.compress()).status).toBe("committed");
    const entry = session.compactions()[0]!;
    // In memory: exact.
    expect(holds(entry.removed.map((r) => r.message), KEY)).toBe(true);
    // On disk: the placeholder, never the key, and the digest of the exact original beside the redacted copy.
    const file = readFileSync(join(dir, "redact-chat.ledger.jsonl"), "utf8");
    expect(file).not.toContain(KEY);
    expect(file).not.toContain("Q7vXk2LmN9pR4tY8wZ1aB3cD");
    expect(file).toContain("[REDACTED:openai_key]");
    expect(file).toContain('"digest":');

    const saved = session.messages.slice(1);
    expect(holds(saved, KEY)).toBe(false);
    // A resumed session (the same ledger file, the history as saved after the compaction): undo still finds the
    // pass (the redacted copy carries its original's digest) and gives back the placeholder in place of the key.
    server.script(() => ({ content: "ok" }));
    const resumed = await open(dir, saved);
    const undone = await resumed.undo();
    expect(undone.status).toBe("restored");
    expect(holds(resumed.messages, KEY)).toBe(false);
    const back = resumed.messages.find((m) => typeof m.content === "string" && m.content.startsWith("Use this key"));
    expect(back?.content).toBe("Use this key for the deploy: [REDACTED:openai_key] and keep it private.");
    // Undo within the process (this session's ledger is in memory, exact): the exact message comes back.
    expect((await session.undo()).status).toBe("restored");
    expect(holds(session.messages, KEY)).toBe(true);

    expect(readFileSync(join(dir, "redact-chat.ledger.jsonl"), "utf8")).not.toContain(KEY);
  });

  it("redacts a pin's text on disk (a resumed pin holds the placeholder)", async () => {
    server.script(() => ({ content: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "ce-ledger-redact-pin-"));
    dirs.push(dir);
    const session = await open(dir);
    expect((await session.pin(`deploy key ${KEY}`)).status).toBe("pinned");
    expect(session.pins()[0]!.text).toContain(KEY);
    expect(readFileSync(join(dir, "redact-chat.ledger.jsonl"), "utf8")).not.toContain(KEY);
    const resumed = await open(dir, session.messages.slice(1));
    expect(resumed.pins()[0]!.text).toBe("deploy key [REDACTED:openai_key]");
  });

  it("applies the session's redaction rules (an extra rule, a disabled kind) to the file", async () => {
    server.script(() => ({ content: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "ce-ledger-redact-rules-"));
    dirs.push(dir);
    const { host } = makeHost(server, { engine: new ContextCompressor({ contextLength: 200_000, model: "test-model" }) });
    const session = await host.openSession({
      sessionId: "rules",
      model: "test-model",
      contextLength: 200_000,
      ledgerDir: dir,
      ledgerRedaction: { extra: [{ kind: "acme_badge", pattern: "ACME-\\d{6}" }], disable: ["openai_key"] },
    });
    await session.pin(`badge ACME-123456, key ${KEY}`);
    const file = readFileSync(join(dir, "rules.ledger.jsonl"), "utf8");
    expect(file).toContain("[REDACTED:acme_badge]");
    expect(file).not.toContain("ACME-123456");
  });
});
