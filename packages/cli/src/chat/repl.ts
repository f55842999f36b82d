import { createInterface, type Interface } from "node:readline";
import type { Readable } from "node:stream";
import { EXIT, type ExitCode } from "../errors.js";
import type { Palette } from "../format/color.js";
import type { CliIO } from "../io.js";
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, LineAssembler, PasteFilter } from "./input.js";
import type { TurnDeps } from "./turn.js";
import { runOneTurn } from "./turn.js";

export interface ReplOptions {
  io: CliIO;
  deps: TurnDeps;
  out: Palette;
  /** A slash command line → its output, or null for a message to send. "exit" leaves. */
  command(line: string): Promise<string | "exit" | null>;
}

/** How long a first Ctrl-C at an empty prompt waits for a second one. */
const LEAVE_WINDOW_MS = 3000;

/**
 * The read–send loop. On a terminal: raw mode with bracketed paste (a
 * pasted block is one message), `\` continuation and `/multi`, Ctrl-C
 * cancels the running turn, clears a half-typed line, and leaves only when
 * pressed twice at an empty prompt. Piped: one message per line (same
 * continuation rules).
 */
export async function runRepl(o: ReplOptions): Promise<ExitCode> {
  const { io, deps } = o;
  const stdin = io.stdin as Readable & { isTTY?: boolean; setRawMode?: (on: boolean) => void };
  const interactive = stdin.isTTY === true;
  let current: AbortController | null = null;
  const filter = new PasteFilter();
  const assembler = new LineAssembler(filter.book);
  stdin.pipe(filter);
  const rl: Interface = createInterface({
    input: filter,
    output: interactive ? (io.stderr as NodeJS.WritableStream) : undefined,
    terminal: interactive,
    historySize: 200,
  });
  if (interactive) {
    stdin.setRawMode?.(true);
    io.stderr.write(BRACKETED_PASTE_ON);
  }
  // Text typed while an answer streams is kept for the next prompt but not echoed into the answer
  // (readline draws every keystroke through _writeToOutput; the next prompt() redraws the typed line).
  const echo = rl as unknown as { _writeToOutput?: (text: string) => void };
  const draw = echo._writeToOutput?.bind(rl);
  if (interactive && draw) echo._writeToOutput = (text) => (current ? undefined : draw(text));
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const prompt = () => {
    if (!interactive) return;
    rl.setPrompt(assembler.continuing ? o.out.dim(assembler.multi ? "… " : "  ") : o.out.bold("you› "));
    rl.prompt();
  };


  let exitCode: ExitCode = EXIT.ok;
  let leaveArmedAt = 0;
  let interrupted = false;
  rl.on("SIGINT", () => {
    if (current) {
      current.abort();
      return;
    }
    const typed = (rl as unknown as { line?: string }).line ?? "";
    if (typed || assembler.cancel()) {
      // Drop the half-typed message, like a shell.
      rl.write(null, { ctrl: true, name: "u" });
      io.stderr.write("\n");
      prompt();
      return;
    }
    if (Date.now() - leaveArmedAt < LEAVE_WINDOW_MS) {
      interrupted = true;
      rl.close();
      return;
    }
    leaveArmedAt = Date.now();
    io.stderr.write("\n");
    say(o.out.dim("Press Ctrl-C again to leave (or type /exit)."));
    prompt();
  });
  // Piped input: a Ctrl-C from the terminal still cancels the turn first.
  const onSignal = () => {
    if (current) current.abort();
    else {
      interrupted = true;
      rl.close();
    }
  };
  if (!interactive) process.on("SIGINT", onSignal);

  try {
    prompt();
    for await (const raw of rl) {
      leaveArmedAt = 0;
      const assembled = assembler.feed(raw);
      if (assembled.kind === "multi_started") say(o.out.dim("Multi-line message: end it with a line holding only /end (or a lone '.')."));
      if (assembled.kind !== "message") {
        prompt();
        continue;
      }
      const text = assembled.text;
      if (!text.includes("\n")) {
        const outcome = await o.command(text);
        if (outcome === "exit") break;
        if (outcome !== null) {
          io.stdout.write(`${outcome}\n`);
          prompt();
          continue;
        }
      }
      current = new AbortController();
      try {
        // `//text` sends a message that starts with a slash.
        const message = text.startsWith("//") ? text.slice(1) : text;
        const { exitCode: code } = await runOneTurn(message, deps, current);
        exitCode = code === EXIT.interrupted ? exitCode : code;
      } finally {
        current = null;
      }
      prompt();
    }
  } finally {
    if (!interactive) process.off("SIGINT", onSignal);
    if (interactive) {
      io.stderr.write(BRACKETED_PASTE_OFF);
      stdin.setRawMode?.(false);
    }
    stdin.unpipe(filter);
    stdin.pause();
    rl.close();
  }
  return interrupted ? EXIT.interrupted : exitCode;
}
