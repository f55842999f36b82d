import { CliError, EXIT, isCliError, type ExitCode } from "./errors.js";
import { closest } from "./suggest.js";
import { checkHome } from "./home-check.js";
import { storeProblem } from "./lcm/store-errors.js";
import { HELP_BY_COMMAND, MAIN_HELP } from "./help.js";
import type { CliIO } from "./io.js";
import { cliVersion } from "./version.js";

const COMMANDS = ["replay", "chat", "plugins", "config", "new-engine", "lcm", "help"] as const;

/**
 * Run the CLI: parse `argv` (without node and the script), run the command,
 * and return the exit code. Errors never escape: each class maps to its own
 * exit code and a message on stderr, with a stack only in verbose mode.
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const args = [...argv];
  const verbose = args.includes("--verbose") || args.includes("-v") || truthy(io.env.CONTEXT_ENGINE_DEBUG);
  try {
    return await dispatch(args, io);
  } catch (error) {
    return reportError(error, io, verbose);
  }
}

async function dispatch(args: string[], io: CliIO): Promise<number> {
  const first = args[0];
  if (first === undefined) {
    io.stderr.write(MAIN_HELP);
    return EXIT.usage;
  }
  if (first === "--help" || first === "-h") {
    io.stdout.write(MAIN_HELP);
    return EXIT.ok;
  }
  if (first === "--version" || first === "-V") {
    io.stdout.write(`${cliVersion()}\n`);
    return EXIT.ok;
  }
  const rest = args.slice(1);
  // Help needs no home; every command that reads or writes files does.
  if (first !== "help" && !rest.includes("--help") && !rest.includes("-h")) checkHome(io);
  switch (first) {
    case "help": {
      const topic = rest[0];
      if (!topic || topic === "--help" || topic === "-h" || topic === "help") io.stdout.write(MAIN_HELP);
      else if (HELP_BY_COMMAND[topic]) io.stdout.write(HELP_BY_COMMAND[topic]!);
      else throw unknownCommand(topic);
      return EXIT.ok;
    }
    case "replay":
      return (await import("./commands/replay.js")).replayCommand(rest, io);
    case "chat":
      return (await import("./commands/chat.js")).chatCommand(rest, io);
    case "plugins":
      return (await import("./commands/plugins.js")).pluginsCommand(rest, io);
    case "config":
      return (await import("./commands/config.js")).configCommand(rest, io);
    case "new-engine":
      return (await import("./commands/new-engine.js")).newEngineCommand(rest, io);
    case "lcm":
      return (await import("./commands/lcm.js")).lcmCommand(rest, io);
    default:
      throw unknownCommand(first);
  }
}

function unknownCommand(name: string): CliError {
  const guess = closest(name, COMMANDS);
  return new CliError(`unknown command ${JSON.stringify(name)}`, EXIT.usage, {
    hints: [guess ? `Did you mean '${guess}'?` : `Commands: ${COMMANDS.join(", ")}.`, "Run 'context-engine --help' for usage."],
  });
}

/** Map any thrown value to an exit code and a readable message. */
export function reportError(error: unknown, io: CliIO, verbose: boolean): number {
  const { code, message, hints } = classifyError(error);
  io.stderr.write(`context-engine: error: ${message}\n`);
  for (const hint of hints) io.stderr.write(`  ${hint}\n`);
  if (verbose && error instanceof Error && error.stack && code === EXIT.internal) io.stderr.write(`${error.stack}\n`);
  else if (code === EXIT.internal) io.stderr.write("  This is a bug; rerun with --verbose for the stack trace and report it.\n");
  return code;
}

/** Errors from our dependencies, recognised by name so duplicated package copies still match. */
export function classifyError(error: unknown): { code: ExitCode; message: string; hints: readonly string[] } {
  if (isCliError(error)) return { code: error.exitCode, message: error.message, hints: error.hints };
  // A PostgreSQL server error (SQLSTATE and severity) or a missing pg package is a store problem, not a bug.
  const store = error instanceof Error && ("severity" in error || /"pg" package/.test(error.message)) ? storeProblem(error) : null;
  if (store) return { code: store.exitCode, message: store.message, hints: store.hints };
  if (error instanceof Error) {
    switch (error.name) {
      case "ConfigError":
        return { code: EXIT.config, message: error.message, hints: ["Run 'context-engine config check' for every problem with its line."] };
      case "EngineLoadError": {
        const kind = (error as { kind?: string }).kind;
        return { code: kind === "unknown_engine" || kind === "invalid_name" ? EXIT.usage : EXIT.config, message: error.message, hints: ["Run 'context-engine plugins list' to see the engines found."] };
      }
      case "SessionFormatError":
        return { code: EXIT.input, message: error.message, hints: [] };
      case "ChatModelError":
        return { code: EXIT.endpoint, message: error.message, hints: [] };
    }
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno === "ENOENT" || errno === "EACCES" || errno === "EISDIR") return { code: EXIT.input, message: error.message, hints: [] };
    return { code: EXIT.internal, message: error.message || error.name, hints: [] };
  }
  return { code: EXIT.internal, message: String(error), hints: [] };
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}
