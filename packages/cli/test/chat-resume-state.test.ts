import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { runBin, sandbox } from "./helpers/run-bin.js";

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const filler = Array.from({ length: 30 }, (_, i) => `Line ${i}: the deploy step ${i} passed on host ${i % 3}.`).join(" ");

/** A loopback model whose answers are long enough that a 4k window compacts after a few turns. */
async function setUp(engine: string) {
  server = await startChatServer((req) => {
    const last = req.body.messages.at(-1)!;
    return completion({ content: `echo: ${String(last.content).slice(0, 60)}\n${filler}` });
  });
  const s = sandbox();
  writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\n  context_window: 4000\ncontext:\n  engine: ${engine}\n`);
  return s;
}

type Line = { type: string; message?: { role: string; content: unknown }; messages?: unknown[]; number?: number };
const readTranscript = (home: string): { id: string; lines: Line[] } => {
  const file = readdirSync(join(home, "chats"))[0]!;
  const lines = readFileSync(join(home, "chats", file), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Line);
  return { id: file.replace(/\.jsonl$/, ""), lines };
};

const TOPICS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];

for (const engine of ["compressor", "lcm"]) {
  describe(`chat --resume continues from the engine's state (${engine})`, () => {
    it("the transcript keeps every message, each compaction and the compacted list; a resumed chat starts from that list and lists the earlier compactions", async () => {
      const s = await setUp(engine);
      const first = await runBin(["chat"], { ...s, input: `${TOPICS.map((t) => `tell me about ${t}`).join("\n")}\n` });
      expect(first.code, first.stderr).toBe(0);
      const { id, lines } = readTranscript(s.home);
      const said = lines.filter((l) => l.type === "message");
      const ledger = lines.filter((l) => l.type === "compaction");
      expect(said).toHaveLength(TOPICS.length * 2);
      expect(ledger.length).toBeGreaterThan(0);
      expect(ledger.map((l) => l.number)).toEqual(ledger.map((_, i) => i + 1));
      const contexts = lines.filter((l) => l.type === "context");
      expect(contexts.length).toBeGreaterThan(0);

      // The replay reader still reads the conversation as it was said.
      const replayed = await runBin(["replay", join(s.home, "chats", `${id}.jsonl`), "-e", "compressor", "-n", "3000", "--json", "--no-report", "--no-progress"], s);
      expect(replayed.code, replayed.stderr).toBe(0);
      const report = JSON.parse(replayed.stdout) as { sessions: Array<{ messages: number; runs: Array<{ compactions: Array<{ detail?: { recordedSpan?: { from: number; to: number } } }> }> }> };
      expect(report.sessions[0]!.messages).toBe(TOPICS.length * 2);
      // The replay's compactions are dated by when the chat's messages were said, not by the replay's clock.
      const spans = report.sessions[0]!.runs[0]!.compactions.flatMap((c) => (c.detail?.recordedSpan ? [c.detail.recordedSpan] : []));
      expect(spans.length).toBeGreaterThan(0);
      const saidAt = said.map((l) => Date.parse((l as { at?: string }).at!));
      for (const span of spans) {
        expect(span.from).toBeGreaterThanOrEqual(Math.min(...saidAt));
        expect(span.to).toBeLessThanOrEqual(Math.max(...saidAt));
      }

      const before = server!.requests.length;
      const resumed = await runBin(["chat", "--resume", id.slice(0, 8)], { ...s, input: "/status\n/compactions\nand the next topic?\n" });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(new RegExp(`Resumed chat ${id} \\(${TOPICS.length * 2} messages; the context continues as the engine left it: \\d+ messages after ${ledger.length} compaction`));
      expect(resumed.stdout).toMatch(new RegExp(`Compactions\\s+${ledger.length} \\(${ledger.length} before this chat was resumed\\)`));
      const share = Number(/Estimated tokens\s+~[\d,]+ \(([\d.]+)% of the window\)/.exec(resumed.stdout)?.[1]);
      expect(share).toBeLessThan(100);
      for (let n = 1; n <= ledger.length; n++) expect(resumed.stdout).toMatch(new RegExp(`\\n\\s*${n}\\s+\\S`));
      // The request after the resume holds the compacted list, not all that was said.
      const sent = server!.requests.slice(before).find((r) => r.body.messages.at(-1)?.content === "and the next topic?")!;
      expect(sent).toBeDefined();
      expect(sent.body.messages.length).toBeLessThan(said.length + 1);
      if (engine === "compressor") {
        // What the engine had when the chat stopped, then the new message.
        const last = lines.lastIndexOf(contexts.at(-1)!);
        const after = lines.slice(last + 1).filter((l) => l.type === "message").map((l) => l.message!);
        const kept = [...(contexts.at(-1)!.messages as Array<{ content: unknown }>), ...after];
        expect(sent.body.messages.slice(0, -1).map((m) => m.content)).toEqual(kept.map((m) => m.content));
      }
    }, 120_000);
  });
}
