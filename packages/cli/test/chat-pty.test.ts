import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { loadPty, startPty, type PtySession } from "./helpers/pty.js";
import { sandbox } from "./helpers/run-bin.js";

const ptyMissing = await loadPty();
if (ptyMissing) console.warn(`[chat-pty] skipped: node-pty did not load (${ptyMissing}); run pnpm install with its native build allowed`);

let server: ChatServer | null = null;
let term: PtySession | null = null;
afterEach(async () => {
  term?.kill();
  term = null;
  await server?.close();
  server = null;
});

function configure(url: string, extra = "") {
  const s = sandbox();
  writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${url}\n${extra}`);
  return s;
}

const lastUser = (s: ChatServer) => s.requests.at(-1)!.body.messages.at(-1)!.content;

describe.skipIf(ptyMissing !== null)("chat in a terminal (built binary in a pseudo-terminal, loopback OpenAI streaming server)", () => {
  it("streams the answer piece by piece with a spinner while waiting, and shows tool-call progress", async () => {
    const answer = "Streaming works: here is a longer answer that arrives in many small pieces.";
    server = await startChatServer(
      (req) => {
        const last = req.body.messages.at(-1)!;
        if (last.role === "user" && String(last.content).includes("tool")) {
          return completion({ content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup_notes", arguments: '{"topic":"release planning for the next quarter"}' } }] });
        }
        return completion({ content: last.role === "tool" ? "after the tool" : answer });
      },
      { chunkDelayMs: 40 },
    );
    const s = configure(server.url);
    term = startPty(["chat"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    const mark = term.plain().length;
    term.write("hello\r");
    // The spinner shows before the first piece arrives.
    await term.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking… \d+\.\ds/, { from: mark });
    // Part of the answer is on screen while the rest is still coming.
    await term.waitFor("Streaming works", { from: mark });
    expect(term.plain().slice(mark)).not.toContain("small pieces.");
    await term.waitFor("small pieces.", { from: mark });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    const mark2 = term.plain().length;
    term.write("use a tool please\r");
    await term.waitFor(/calling lookup_notes · \d+ chars of arguments/, { from: mark2 });
    await term.waitFor("after the tool", { from: mark2 });
    term.write("/exit\r");
    expect(await term.exited).toBe(0);
  });

  it("a bracketed paste is one message with its indentation; /multi too", async () => {
    server = await startChatServer();
    const s = configure(server.url);
    term = startPty(["chat"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    const block = "def add(a, b):\n    # sum\n    return a + b\n";
    // A terminal sends a paste wrapped in ESC[200~ … ESC[201~, line breaks as CR.
    term.write(`\u001b[200~${block.replace(/\n/g, "\r")}\u001b[201~`);
    await term.waitFor("[pasted text #1, 3 lines]");
    term.write(" explain\r");
    await term.waitFor("echo: def add");
    expect(server.requests).toHaveLength(1);
    expect(lastUser(server)).toBe("def add(a, b):\n    # sum\n    return a + b explain");
    // A paste split across reads, without line breaks, is typed text.
    term.write("\u001b[20");
    term.write("0~one line\u001b[201~\r");
    await term.waitFor("echo: one line");
    term.write("/multi\r");
    await term.waitFor("end it with a line holding only /end");
    term.write("  first\r");
    term.write("    second\r");
    term.write("/end\r");
    await term.waitFor("echo:   first");
    expect(lastUser(server)).toBe("  first\n    second");
    expect(server.requests).toHaveLength(3);
    term.write("\u0004");
    expect(await term.exited).toBe(0);
  });

  it("Ctrl-C cancels the running turn (the request is aborted), then asks before leaving; a second Ctrl-C leaves with 130", async () => {
    server = await startChatServer((req) => (String(req.body.messages.at(-1)!.content).includes("slow") ? { stall: "Let me think about" } : null));
    const s = configure(server.url);
    term = startPty(["chat"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    term.write("a slow question\r");
    await term.waitFor("Let me think about");
    term.write("\u0003");
    await term.waitFor("⚠ cancelled: the request was stopped");
    // The server saw the client go away.
    for (let i = 0; i < 40 && server.aborted === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.aborted).toBe(1);
    // The chat goes on.
    const mark = term.plain().length;
    term.write("quick one\r");
    await term.waitFor("echo: quick one", { from: mark });
    // Ctrl-C at the prompt asks first.
    const mark2 = term.plain().length;
    term.write("\u0003");
    await term.waitFor("Press Ctrl-C again to leave", { from: mark2 });
    term.write("\u0003");
    expect(await term.exited).toBe(130);
  });

  it("one-shot in a terminal: the answer streams to stdout; Ctrl-C cancels the request and exits 130", async () => {
    server = await startChatServer((req) => (String(req.body.messages.at(-1)!.content).includes("slow") ? { stall: "Partial answer" } : null));
    const s = configure(server.url);
    term = startPty(["chat", "a quick question"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("echo: a quick question");
    expect(await term.exited).toBe(0);
    term = startPty(["chat", "a slow question"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("Partial answer");
    term.write("\u0003");
    await term.waitFor("⚠ cancelled");
    expect(await term.exited).toBe(130);
    for (let i = 0; i < 40 && server.aborted === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.aborted).toBe(1);
  });

  it("/compactions shows what the lossless engine removed, and /expand <id> brings the originals back", async () => {
    server = await startChatServer((req) => {
      const last = req.body.messages.at(-1)!;
      const filler = Array.from({ length: 25 }, (_, i) => `Detail ${i}: checklist item ${i} is signed off.`).join(" ");
      return completion({ content: `noted: ${String(last.content).slice(0, 40)}. ${filler}` });
    });
    const s = configure(server.url, "  context_window: 4000\ncontext:\n  engine: lcm\n");
    term = startPty(["chat"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    for (const line of ["the launch code is 4471", "the backup site is Oslo", "the owner is Priya", "the deadline is Friday"]) {
      const mark = term.plain().length;
      term.write(`${line}\r`);
      await term.waitFor(`noted: ${line}`, { from: mark });
    }
    term.write("/compress\r");
    await term.waitFor(/Compacted: \d+ → \d+ messages/);
    const mark = term.plain().length;
    term.write("/compactions 1\r");
    await term.waitFor(/Get the originals back: \/expand (sum_[0-9a-f]+)/, { from: mark });
    const shown = term.plain().slice(mark);
    expect(shown).toMatch(/Removed from the context \(\d+\):\n\s+- user: the launch code is 4471/);
    const id = /\/expand (sum_[0-9a-f]+)/.exec(shown)![1]!;
    const mark2 = term.plain().length;
    term.write(`/expand ${id}\r`);
    await term.waitFor("| the launch code is 4471", { from: mark2 });
    term.write("/exit\r");
    expect(await term.exited).toBe(0);
  });

  it("text typed while an answer streams is not mixed into it, and waits at the next prompt", async () => {
    const answer = "A steady answer that streams slowly in many small pieces for the typing test.";
    server = await startChatServer(() => completion({ content: answer }), { chunkDelayMs: 60 });
    const s = configure(server.url);
    term = startPty(["chat"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    const mark = term.plain().length;
    term.write("hello\r");
    await term.waitFor("A steady", { from: mark });
    term.write("zqxj");
    await term.waitFor("typing test.", { from: mark });
    await term.waitFor(/you› zqxj/, { from: mark });
    const during = term.plain().slice(mark);
    // Not inside the answer: only once, after it, at the new prompt.
    expect(during.slice(0, during.indexOf("typing test."))).not.toContain("zqxj");
    term.write("\r");
    await term.waitFor(/you›/, { from: term.plain().length });
    expect(lastUser(server)).toBe("zqxj");
    term.write("/exit\r");
    expect(await term.exited).toBe(0);
  });
});

/** Lines as a terminal shows them: a carriage return starts the line over, so a line is as wide as its widest piece. */
function screenLines(text: string): string[] {
  return text.split("\n").map((line) => line.split("\r").reduce((a, b) => (b.length > a.length ? b : a), ""));
}

function overflowing(text: string, cols: number): string[] {
  return screenLines(text).filter((l) => [...l].length > cols);
}

/** A long-winded model: answers large enough that a 4k window compacts. */
async function wordyServer() {
  return startChatServer((req) => {
    const last = req.body.messages.at(-1)!;
    const filler = Array.from({ length: 25 }, (_, i) => `Detail ${i}: checklist item ${i} is signed off.`).join(" ");
    return completion({ content: `noted: ${String(last.content).slice(0, 40)}. ${filler}` });
  });
}

/** Type a command and wait for its output to end (the next prompt); the output, raw. */
async function run(t: PtySession, command: string, expectText: string | RegExp): Promise<string> {
  const mark = t.output.length;
  const plainMark = t.plain().length;
  t.write(`${command}\r`);
  await t.waitFor(expectText, { from: plainMark });
  await t.waitFor(/you› $/, { from: plainMark + command.length + 6 });
  return t.output.slice(mark).replace(/\u001b\[[0-9;?]*[A-Za-z~]|\u001b\][^\u0007]*\u0007/g, "").replace(/\r+\n/g, "\n");
}

const FIRST = "the launch code is 4471 and it must be kept somewhere safe until the review on Friday";

describe.skipIf(ptyMissing !== null)("chat screens fit the terminal (built binary in a pseudo-terminal, loopback OpenAI server)", () => {
  for (const cols of [60, 80]) {
    it(`at ${cols} columns: /status, /engine, /context, /compactions, /help and chat --list stay within the width and keep their information`, async () => {
      server = await wordyServer();
      const s = sandbox();
      // A deep home makes the transcript path longer than any of these terminals.
      const home = join(s.home, "a-rather-long-directory-name", "another-long-directory-name-here");
      const env = { ...s.env, CONTEXT_ENGINE_HOME: home, NO_COLOR: "1" };
      writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\n  context_window: 4000\ncontext:\n  engine: lcm\n`);
      term = startPty(["chat"], { cwd: s.cwd, env, cols });
      await term.waitFor("you›");
      expect(overflowing(term.plain(), cols)).toEqual([]);
      for (const line of [FIRST, "the backup site is Oslo", "the owner is Priya", "the deadline is Friday"]) {
        const mark = term.plain().length;
        term.write(`${line}\r`);
        await term.waitFor(`noted: ${line.slice(0, 20)}`, { from: mark });
        await term.waitFor(/you› $/, { from: mark + line.length });
      }
      await run(term, "/compress", /Compacted: \d+ → \d+ messages/);

      const status = await run(term, "/status", "Compactions");
      expect(status).toMatch(/Transcript\s+\S*…\S*\.jsonl/);
      expect(status).toMatch(/Compactions\s+1/);
      const engine = await run(term, "/engine", /Context engine\s+lcm/);
      // The last compaction reads down: one field a line.
      expect(engine).toMatch(/Lcm › session\n[\s\S]*Last compaction\s+at: .*\n\s+duration ms: \d+/);
      const context = await run(term, "/context", "tokens in the window");
      expect(context).toMatch(/\d\s+summary\s+[\d,]+\s+\S/);
      expect(context).toMatch(/total\s+\d+\s+[\d,]+\s+100%/);
      const list = await run(term, "/compactions", "shows what one removed");
      expect(list).toMatch(/#?1\s+manual/);
      expect(list).toMatch(/~[\d,]+ → ~[\d,]+/);
      const one = await run(term, "/compactions 1", "Get the originals back");
      expect(one).toMatch(/- user: the launch code is 4471/);
      const help = await run(term, "/help", "/compactions");
      for (const [name, text] of Object.entries({ status, engine, context, list, one, help })) {
        expect(overflowing(text, cols), `${name} at ${cols} columns:\n${text}`).toEqual([]);
      }
      term.write("/exit\r");
      expect(await term.exited).toBe(0);

      term = startPty(["chat", "--list"], { cwd: s.cwd, env, cols });
      expect(await term.exited).toBe(0);
      const shown = term.plain();
      expect(overflowing(shown, cols), shown).toEqual([]);
      // Nothing cut to "moc…": the model, the engine and the start of the first message are there whole.
      expect(shown).toContain("gpt-4o-mini");
      expect(shown).toContain("lcm");
      expect(shown).toContain("the launch code is 4471");
      expect(shown).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

      // Resumed: the context the engine left (within the window) and the compaction before the resume.
      term = startPty(["chat", "--resume"], { cwd: s.cwd, env, cols });
      await term.waitFor("you›");
      expect(term.plain()).toMatch(/Resumed chat [\s\S]*after 1\s+compaction/);
      const resumed = await run(term, "/status", "Compactions");
      expect(resumed).toMatch(/Compactions\s+1 \(1 before this chat was\s+resumed\)/);
      expect(Number(/\(([\d.]+)% of\s+the window\)/.exec(resumed)?.[1])).toBeLessThan(100);
      const ledger = await run(term, "/compactions", "shows what one removed");
      expect(ledger).toMatch(/#?1\s+manual/);
      for (const text of [term.plain(), resumed, ledger]) expect(overflowing(text, cols)).toEqual([]);
      term.write("/exit\r");
      expect(await term.exited).toBe(0);
    });
  }
});
