import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChatServer, type ChatServer } from "./helpers/chat-server.js";
import { loadPty, startPty, type PtySession } from "./helpers/pty.js";
import { sandbox } from "./helpers/run-bin.js";

const ptyMissing = await loadPty();
if (ptyMissing) console.warn(`[chat-ledger-pty] skipped: node-pty did not load (${ptyMissing}); run pnpm install with its native build allowed`);

let server: ChatServer | null = null;
let term: PtySession | null = null;
afterEach(async () => {
  term?.kill();
  term = null;
  await server?.close();
  server = null;
});

const PIN = "The launch code is 4471; never change it.";
type Sent = { role: string; content: unknown };
const pinsBlocks = (messages: Sent[]) => messages.filter((m) => m.role === "system" && String(m.content).startsWith("[Pinned by the user"));

async function say(t: PtySession, line: string, expected: string | RegExp): Promise<string> {
  const mark = t.plain().length;
  t.write(`${line}\r`);
  await t.waitFor(expected, { from: mark });
  return t.plain().slice(mark);
}

describe.skipIf(ptyMissing !== null)("the compaction ledger, /undo, /restore and pins in the chat (pseudo-terminal, loopback server)", () => {
  it("pins survive /compress and a resume, /compactions shows the ledger, /undo puts the messages back", async () => {
    server = await startChatServer();
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), `model:\n  name: gpt-4o-mini\n  base_url: ${server.url}\n  context_window: 16000\n`);
    term = startPty(["chat"], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    for (let i = 0; i < 7; i++) await say(term, `topic ${i}: ${"some words about it ".repeat(8)}`, `echo: topic ${i}`);
    await say(term, `/pin ${PIN}`, /Pinned p1 \(~\d+ tokens/);
    await say(term, "/compress", /Compacted: \d+ → \d+ messages/);
    const one = await say(term, "/compactions 1", /\/restore c1 puts it back/);
    expect(one).toMatch(/Ledger c1 · engine compressor · prompt cache: [\d,]+ of [\d,]+ request bytes unchanged/);
    expect(one).toMatch(/Removed from the context \(\d+\):\n(\s+- .*\n)*\s+- user: topic 2/);
    await say(term, "after the pass", "echo: after the pass");
    let sent = server.requests.at(-1)!.body.messages as Sent[];
    expect(pinsBlocks(sent)).toHaveLength(1);
    expect(String(pinsBlocks(sent)[0]!.content)).toContain(PIN);
    expect(JSON.stringify(sent)).not.toContain('"content":"topic 2:');

    // A window whose pins cap (10% of 100 tokens) the pin exceeds: /model is refused with the figures, nothing changes.
    const overCap = (await say(term, "/model gpt-4o-mini 100", /then switch\s+again/)).replace(/\s+/g, " ");
    expect(overCap).toMatch(/Refused: not switched to gpt-4o-mini: the pins take ~\d+ tokens, over the cap of 10 for its 100-token window by \d+ \(pins: p1 ~\d+\)/);
    await say(term, "/status", /16,000/);
    // A window too small for the originals: refused with the figure, nothing changed.
    await say(term, "/model gpt-4o-mini 500", "context window 500 tokens");
    const refused = await say(term, "/undo", /do not fit the window: ~[\d,]+ tokens needed, [\d,]+ available, over by [\d,]+\. Nothing was\s+changed\./);
    const [, needed, available, over] = /~([\d,]+) tokens needed, ([\d,]+) available, over by ([\d,]+)/.exec(refused)!.map((x) => Number(String(x).replace(/,/g, "")));
    expect(needed! - available!).toBe(over);
    await say(term, "/model gpt-4o-mini 16000", "context window 16,000 tokens");
    await say(term, "/undo", /Restored c1: \d+ messages? back in the context/);
    await say(term, "/compactions", "(undone)");
    await say(term, "/restore c7", "no compaction c7");
    await say(term, "/pins", /p1\s+~\d+ tokens\s+The launch code is 4471/);
    await say(term, "after the undo", "echo: after the undo");
    sent = server.requests.at(-1)!.body.messages as Sent[];
    // The originals are back in the request, and the pin is still there once.
    expect(JSON.stringify(sent)).toContain('"content":"topic 2:');
    expect(pinsBlocks(sent)).toHaveLength(1);
    term.write("/exit\r");
    expect(await term.exited).toBe(0);

    // The ledger is kept beside the transcript; a resume brings the pins and the ledger back.
    const files = readdirSync(join(s.home, "chats"));
    const ledgerFile = files.find((f) => f.endsWith(".ledger.jsonl"))!;
    expect(ledgerFile).toBeDefined();
    const kinds = readFileSync(join(s.home, "chats", ledgerFile), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { kind: string }).kind);
    expect(kinds).toEqual(["pin", "compaction", "restore"]);
    const id = ledgerFile.replace(/\.ledger\.jsonl$/, "");
    term = startPty(["chat", "--resume", id], { cwd: s.cwd, env: { ...s.env, NO_COLOR: "1" } });
    await term.waitFor("you›");
    await say(term, "/pins", /p1\s+~\d+ tokens/);
    await say(term, "/compactions 1", "put back by r1");
    await say(term, "back again", "echo: back again");
    sent = server.requests.at(-1)!.body.messages as Sent[];
    expect(pinsBlocks(sent)).toHaveLength(1);
    expect(String(pinsBlocks(sent)[0]!.content)).toContain(PIN);
    await say(term, "/unpin p1", "Unpinned p1");
    await say(term, "unpinned now", "echo: unpinned now");
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain(PIN);
    term.write("/exit\r");
    expect(await term.exited).toBe(0);
  });
});
