import { randomUUID } from "node:crypto";
import type { Logger, Message } from "@context-engine/core";
import type { HostEvent } from "@context-engine/host";
import { parseCommandArgs, positiveInt } from "../args.js";
import { EXIT, InputError, UsageError, type ExitCode } from "../errors.js";
import { createPalette, type Palette } from "../format/color.js";
import { terminalWidth } from "../format/fit-table.js";
import { fitLines, renderKeyValues } from "../format/fit-screen.js";
import { CHAT_HELP } from "../help.js";
import { useColor, type CliIO } from "../io.js";
import { createCliLogger } from "../logger.js";
import { CHAT_COMMAND_HELP, runChatCommand, type ChatContext } from "../chat/commands.js";
import { CompactionLog } from "../chat/compactions.js";
import { runRepl } from "../chat/repl.js";
import { setUpChat, type ChatSetup } from "../chat/setup.js";
import { Journal } from "../chat/journal.js";
import { listChats, openStore, pickResume } from "../chat/resume.js";
import { pruneChats } from "../chat/retention.js";
import type { LoadedTranscript } from "../chat/transcripts.js";
import { runOneTurn, type TurnDeps } from "../chat/turn.js";
import { TurnView } from "../chat/turn-view.js";
import { describeChatEvent } from "./chat-events.js";

const SILENT: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Engine and loader warnings as one plain line each (no data tail; --verbose shows it), each once. */
function plainWarnings(write: (line: string) => void, p: Palette): Logger {
  const seen = new Set<string>();
  const emit = (message: string) => {
    if (seen.has(message)) return;
    seen.add(message);
    write(p.yellow(`⚠ ${message}`));
  };
  return { debug() {}, info() {}, warn: emit, error: emit };
}

export async function chatCommand(argv: string[], io: CliIO): Promise<number> {
  // `chat export …` is a subcommand; a message that is the single word "export" goes as `chat -- export`.
  if (argv[0] === "export") return (await import("./chat-export.js")).chatExportCommand(argv.slice(1), io);
  const { resumeId, rest } = takeResume(argv);
  const { values, positionals } = parseCommandArgs("chat", rest, {
    engine: { type: "string", short: "e" },
    model: { type: "string", short: "m" },
    "context-length": { type: "string", short: "n" },
    system: { type: "string" },
    list: { type: "boolean" },
    "no-save": { type: "boolean" },
  }, ["resume"]);
  if (values.help) {
    io.stdout.write(CHAT_HELP);
    return EXIT.ok;
  }
  const contextLength = positiveInt("context-length", values["context-length"]);
  const noColor = values["no-color"] === true;
  const err = createPalette(useColor(io.stderr, io.env) && !noColor);
  const out = createPalette(useColor(io.stdout, io.env) && !noColor);
  // Read at each use: the terminal may be resized during the chat.
  // Piped output is not wrapped unless $COLUMNS asks for a width.
  const width = () => {
    const tty = [io.stdout, io.stderr].find((sink) => sink.isTTY === true && (sink.columns ?? 0) > 0);
    return tty || io.env.COLUMNS ? terminalWidth(tty?.columns, io.env) : Number.POSITIVE_INFINITY;
  };
  const say = (line: string) => io.stderr.write(`${fitLines(line, width())}\n`);
  const store = values["no-save"] ? null : openStore(io);
  if (values.list) {
    if (!store) throw new UsageError("chat: --list and --no-save do not go together");
    io.stdout.write(listChats(store, width()));
    return EXIT.ok;
  }

  const resume = resumeId === undefined ? null : pickResume(store, resumeId);
  const oneShot = await oneShotMessage(positionals, io);
  const sessionId = resume?.header.id ?? randomUUID();
  // A resumed chat continues from the engine's list as it was (its compactions applied), not from everything ever said.
  const resumed = resume ? (resume.context ?? resume.messages) : [];
  const history: Message[] = resumed.filter((m, i) => !(i === 0 && m.role === "system"));
  const restoredSystem = resumed[0]?.role === "system" ? String(resumed[0].content) : undefined;

  const engineLogger = values.verbose ? createCliLogger((line) => say(err.dim(line)), "info") : plainWarnings((line) => (view ? view.notice(fitLines(line, width())) : say(line)), err);
  const hostLogger = values.verbose ? createCliLogger((line) => say(err.dim(line)), "info") : SILENT;
  // Events arrive before the session exists; the view and the log attach once it does.
  let view: TurnView | null = null;
  let compactions: CompactionLog | null = null;
  let manualCompaction = false;
  let lastRequest: { messages: readonly Message[]; estimatedTokens: number; selection: string } | null = null;
  // The transcript learns of each compaction as it commits; the list it left is saved once the turn is over.
  let journal: Journal | null = null;
  const onEvent = (event: HostEvent) => {
    const record = compactions?.observe(event);
    if (record) journal?.compacted(record);
    if (event.type === "tool_results.pruned" || event.type === "compaction.restored" || event.type === "pins.changed") journal?.changed();
    if (event.type === "provider.request") lastRequest = { messages: event.messages, estimatedTokens: event.estimatedTokens, selection: event.selection };
    if (event.type === "provider.request") return view?.request();
    if (event.type === "provider.delta") return;
    // /compress prints its own result line; the result event would say the same thing a second time.
    if (manualCompaction && event.type.startsWith("compaction.") && event.type !== "compaction.started") return;
    const line = describeChatEvent(event, err);
    if (line) (view ? view.notice(fitLines(line, width())) : say(line));
  };
  // A resumed chat continues with the engine it used (its stored context lives there), unless --engine says otherwise.
  const recordedEngine = resume && !values.engine ? resume.header.engine : undefined;
  if (resume && values.engine && values.engine !== resume.header.engine) {
    say(err.yellow(`⚠ chat ${resume.header.id} used the ${resume.header.engine} engine; continuing with ${values.engine} as asked (the transcript is replayed into it)`));
  }
  const setup: ChatSetup = await setUpChat({
    io,
    configPath: values.config,
    engine: values.engine ?? recordedEngine,
    ...(recordedEngine ? { resumedFrom: { id: resume!.header.id, engine: recordedEngine } } : {}),
    model: values.model,
    contextLength,
    systemPrompt: values.system ?? restoredSystem,
    sessionId,
    ...(resume ? { historyTime: resume.saidAt } : {}),
    history,
    ...(store ? { ledgerDir: store.dir } : {}),
    hostLogger,
    engineLogger,
    onEvent,
  });
  const { session, resolved, engineInfo } = setup;
  // Retention (chat.keep_days, chat.max_chats) runs as a chat starts; the chat starting or resumed is never removed.
  const pruned = store ? pruneChats(store, setup.retention, sessionId) : [];
  if (pruned.length > 0) say(err.dim(`Removed ${pruned.length} saved chat${pruned.length === 1 ? "" : "s"} past the retention in ${setup.configFile} (chat.keep_days / chat.max_chats).`));
  view = new TurnView(io.stdout, io.stderr, err);
  compactions = new CompactionLog(() => session.messages);
  if (resume) compactions.restore(resume.compactions);
  // Subscribing by name is what turns streaming on.
  setup.agent.on("provider.delta", (event) => view?.delta(event.delta));

  const header = () => ({ id: session.id, startedAt: new Date().toISOString(), model: session.model, engine: engineInfo.name, cwd: io.cwd });
  const saveHeader = () => {
    try {
      store?.open(header());
    } catch (error) {
      say(err.yellow(`⚠ transcripts are off: ${(error as Error).message}`));
    }
  };
  saveHeader();
  journal = new Journal(store, () => session, (message) => view?.notice(err.yellow(`⚠ could not save the transcript: ${message}`)));
  const endpoint = { baseURL: resolved.baseURL, requestTimeoutMs: resolved.requestTimeoutMs };
  const deps: TurnDeps = { session, view, err: io.stderr, palette: err, endpoint, store, afterSave: () => journal?.saveContext() };

  try {
    if (oneShot !== null) return await runOneShot(oneShot, deps);
    const tokens = `${resolved.contextLength.toLocaleString("en-US")} tokens`;
    const window = `${tokens}${resolved.contextLengthKnown ? "" : ", a guess"}`;
    say(
      err.dim(
        `context-engine chat · model ${resolved.model} (${window}) · engine ${engineInfo.name}` +
          `${engineInfo.version ? ` ${engineInfo.version}` : ""} (${engineInfo.source}) · /help for commands, /exit to leave`,
      ),
    );
    if (!resolved.contextLengthKnown) say(err.yellow(`⚠ ${resolved.model} is not in the built-in table of windows; assuming ${tokens}. Set model.context_length in ${setup.configFile}.`));
    if (resume) say(err.dim(resumedLine(resume)));
    if (engineInfo.fallbackReason) say(err.yellow(`⚠ ${engineInfo.fallbackReason}; using the built-in compressor`));

    const ctx: ChatContext = {
      session,
      engine: engineInfo,
      endpoint: {
        ...endpoint,
        // After /model, the window is a guess when the table does not know the new model and none was given.
        contextLengthKnown: () => session.model === resolved.model ? resolved.contextLengthKnown : windowOf(session).known,
        contextLengthSource: () => (session.model === resolved.model ? resolved.sources.contextLength : windowOf(session).source),
        streaming: () => (setup.chatModel.streamingRefused ? "off (the server refused it)" : "on"),
      },
      transcriptFile: null,
      compactions,
      lastRequest: () => lastRequest,
      width,
    };
    const host = await import("@context-engine/host");
    const windowOf = (sess: { model: string; contextLength: number }) => {
      const lookup = host.lookupContextLength(sess.model);
      if (lookup.known) return { known: true, source: `built-in table (${lookup.matched})` };
      const given = sess.contextLength !== host.DEFAULT_CONTEXT_LENGTH;
      return { known: given, source: given ? "/model" : `a guess: ${sess.model} is not in the built-in table` };
    };
    return await runRepl({
      io,
      deps,
      out,
      command: async (line) => {
        const trimmed = line.trim();
        if (trimmed === "/exit" || trimmed === "/quit") return "exit";
        ctx.transcriptFile = store ? store.fileOf(session.id) : null;
        const ours = await runChatCommand(trimmed, ctx);
        // /undo, /restore, /pin changed the list: a resume continues from it.
        if (ours !== null) journal?.saveContext();
        if (ours !== null) return ours;
        const command = host.parseSlashCommand(trimmed);
        if (!command) return null;
        const idBefore = session.id;
        manualCompaction = command.name === "compress";
        let outcome;
        try {
          outcome = await host.runSlashCommand(session, command, { resolveContextLength: (m) => host.defaultContextLength(m) });
        } finally {
          manualCompaction = false;
          journal?.saveContext();
        }
        if (session.id !== idBefore) saveHeader();
        if (command.name === "help") return renderKeyValues([...Object.entries(host.SLASH_COMMAND_HELP), ...CHAT_COMMAND_HELP], width());
        return fitLines(outcome.output, width());
      },
    });
  } finally {
    // A compaction that committed after the last turn's save (a background pass) is saved too.
    await session.idle().catch(() => undefined);
    journal.saveContext();
    await setup.close();
  }
}

async function runOneShot(text: string, deps: TurnDeps): Promise<ExitCode> {
  const controller = new AbortController();
  let presses = 0;
  const onSignal = () => {
    presses++;
    controller.abort();
    if (presses > 1) process.exit(EXIT.interrupted);
  };
  process.on("SIGINT", onSignal);
  try {
    return (await runOneTurn(text, deps, controller)).exitCode;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/**
 * `chat "question"` sends one message and exits; with stdin piped too, the
 * question and the piped text go as one message. `chat -` reads the whole
 * of stdin as the message. No positional: the interactive (or line-per-turn) loop.
 */
async function oneShotMessage(positionals: string[], io: CliIO): Promise<string | null> {
  if (positionals.length === 0) return null;
  const piped = (io.stdin as { isTTY?: boolean }).isTTY !== true;
  const question = positionals.filter((p) => p !== "-").join(" ").trim();
  const stdinText = piped ? (await readAll(io.stdin)).replace(/\s+$/, "") : "";
  const text = [question, stdinText].filter(Boolean).join("\n\n");
  if (!text) throw new InputError("chat: nothing to send: the question is empty and stdin had no text");
  return text;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  stream.setEncoding("utf8");
  for await (const chunk of stream) text += chunk as string;
  return text;
}

/**
 * `--resume [id]`: the next argument is the id (or a prefix of one) when it is a single word and
 * not a flag, so `--resume 9d9 "continue please"` resumes 9d9; a message of several words after a
 * bare `--resume` continues the newest chat. A path-like value is refused later, before anything is sent.
 */
function takeResume(argv: string[]): { resumeId: string | null | undefined; rest: string[] } {
  const rest: string[] = [];
  let resumeId: string | null | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (a.startsWith("--resume=")) resumeId = a.slice("--resume=".length) || null;
    else if (a === "--resume" || a === "-r") {
      const next = argv[i + 1];
      if (next !== undefined && next !== "-" && !next.startsWith("-") && next.trim() !== "" && !/\s/.test(next.trim())) {
        resumeId = next.trim();
        i++;
      } else resumeId = null;
    } else rest.push(a);
  }
  return { resumeId, rest };
}

function resumedLine(resume: LoadedTranscript): string {
  const said = `${resume.messages.length} messages`;
  if (!resume.context) return `Resumed chat ${resume.header.id} (${said}).`;
  const n = resume.compactions.length;
  return `Resumed chat ${resume.header.id} (${said}; the context continues as the engine left it: ${resume.context.length} messages after ${n} compaction${n === 1 ? "" : "s"}).`;
}
