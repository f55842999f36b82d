import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { loadPty, startPty, type PtySession } from "./helpers/pty.js";
import { sandbox } from "./helpers/run-bin.js";

const ptyMissing = await loadPty();
if (ptyMissing) console.warn(`[chat-screens-pty] skipped: node-pty did not load (${ptyMissing})`);

let server: ChatServer | null = null;
let term: PtySession | null = null;
afterEach(async () => {
  term?.kill();
  term = null;
  await server?.close();
  server = null;
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
  if (process.env.P37B_DUMP) writeFileSync(`/tmp/p37b-screen-${command.replace(/\W/g, "")}.txt`, t.output.slice(mark));
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
      if (process.env.P37B_DUMP) writeFileSync(`/tmp/p37b-screens-${cols}.txt`, [status, engine, context, list, one, help].join("\n=====\n"));
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
