/** Help texts. Kept here so `--help` needs no heavy import. */

export const MAIN_HELP = `context-engine — pluggable context management for LLM agents

Usage:
  context-engine <command> [options]

Commands:
  replay <file|folder>   Replay recorded sessions through the host loop with several engines
                         side by side; print a table, write an HTML report (--demo: bundled session)
  chat                   Chat with an OpenAI-compatible endpoint; the active engine manages the context
  plugins list           Every engine found, its source, version, status, and which one is active
  plugins info <name>    Details of one engine
  config check           Validate config.yaml and print each problem with its line
  new-engine <name>      Scaffold a context engine package (same as npm create context-engine)
  lcm list               The conversations an LCM store holds (SQLite file or PostgreSQL)
  lcm export|import      Move one LCM conversation between stores (SQLite file, PostgreSQL URL)
  help [command]         Show help for a command

Options:
  -h, --help             Show help
  -V, --version          Print the version
  -c, --config <path>    Use this config.yaml (default: ./config.yaml, then $CONTEXT_ENGINE_HOME/config.yaml)
  -v, --verbose          Log engine and host details to stderr
      --no-color         Plain output (also NO_COLOR=1)

Exit codes:
  0 ok · 1 internal error · 2 bad usage or unknown engine · 3 invalid config · 4 missing or
  unreadable input · 5 model endpoint missing or failing · 6 replay check failed · 130 interrupted

Run 'context-engine <command> --help' for a command's options.
`;

export const REPLAY_HELP = `Usage:
  context-engine replay <session file or folder>... [options]
  context-engine replay --demo [options]

Drives the real host loop over recorded sessions, turn by turn: the recorded assistant answers
stand in for the model and the recorded tool results answer its tool calls, so no LLM is needed.
Each engine replays the same sessions; the report compares them.

Formats (auto-detected): OpenAI chat JSON/JSONL, mini-swe-agent .traj.json, SWE-agent .traj,
OpenHands (SWE-Gym ADP), tau-bench, LoCoMo.

Options:
      --demo                   Replay the bundled real session (psf__requests-6028, MIT) comparing
                               compressor and lcm with a context length that forces compaction
  -e, --engine <a,b,…>         Engines to compare (default: every engine that loads)
  -n, --context-length <N>     The model window in tokens, e.g. 16000 or 16k (default:
                               model.context_length from config.yaml, else 128000; demo 12000);
                               the replay says which it used and where it came from
  -m, --model <name>           Model name the requests carry (it selects compression.model_thresholds);
                               default: the model recorded in the session
      --format <name>          Skip detection: openai-jsonl, mini-swe-agent, swe-agent, openhands,
                               tau-bench, locomo
      --limit <N>              Read at most N sessions
      --max-turns <N>          Replay at most N turns of each session
      --json                   Print the report as JSON on stdout (the table is not printed)
      --report <path.html>     Where to write the HTML report (default: a file in the temp dir)
      --no-report              Do not write an HTML report
      --conversation <id>      Continue this conversation of an engine's persistent store (engines.lcm.store
                               in config.yaml); default: a new conversation per run, named on stderr
      --live-summaries         Let engines summarise with the configured model endpoint (model.* or
                               OPENAI_*; network, costs tokens). Default: deterministic summaries
      --keep-data              Keep the engines' data directory (printed on stderr)
      --no-progress            No progress bar on stderr
  -c, --config <path>          config.yaml to read engine settings from

Exit status 6 when a check fails: a request over the context length, a message a lossless engine
can no longer recover, or an engine error.
`;

export const CHAT_HELP = `Usage:
  context-engine chat [options]                 interactive chat (or one message per piped line)
  context-engine chat [options] "question"      one answer on stdout, then exit (stdin, if piped, is appended)
  context-engine chat [options] -               the whole of stdin as one message
  context-engine chat --list                    saved chats, newest first
  context-engine chat --resume [id]             continue a saved chat (an id prefix; none: the newest)
  context-engine chat export <id> [--out FILE]  one saved chat and its compaction ledger as JSON

The endpoint comes from config.yaml (model.base_url, model.api_key, model.name,
model.context_length, model.request_timeout_seconds) and the environment (OPENAI_BASE_URL,
OPENAI_API_KEY, OPENAI_MODEL); a set variable overrides config.yaml. Answers stream in; chats are saved under
$CONTEXT_ENGINE_HOME/chats (default ~/.context-engine/chats).

Input and keys:
  Enter               send
  paste               a pasted block is one message, indentation kept
  line ending in \\    continue on the next line
  /multi … /end       a multi-line message
  Ctrl-C              cancel the running turn; at an empty prompt press twice to leave
  Ctrl-D, /exit       leave

Slash commands:
  /status             Session, model, window (or "a guess"), tokens, threshold, compactions
  /engine             The active engine, its tools and status
  /context            What the model sees next: messages, summaries, tokens by part
  /compactions [n]    What each compaction removed and the summary that replaced it
  /expand <id>        An original back from the lossless engine (lcm_expand)
  /compress [focus]   Compact the conversation now, keeping what relates to <focus> first
  /new, /reset        Start a fresh session (the engine's state is reset)
  /model <name> [N]   Switch the model (and window)
  /help               List the slash commands

Options:
  -e, --engine <name>        Use this engine instead of context.engine from config.yaml
  -m, --model <name>         Use this model instead of the configured one
  -n, --context-length <N>   Override the model's window
      --system <prompt>      A system prompt
  -r, --resume [id]          Continue a saved chat
      --list                 List saved chats
      --no-save              Do not save this chat
  -c, --config <path>        config.yaml to use

Exit codes: 0 ok · 1 the last turn failed inside the host · 4 no such chat / empty message ·
5 endpoint missing or failing · 130 left with Ctrl-C
`;

export const CHAT_EXPORT_HELP = `Usage:
  context-engine chat export <id> [--out FILE]

Writes one saved chat as a single JSON document: its transcript, line by line as saved, and the
entries of its compaction ledger (chats/<id>.ledger.jsonl, redacted as the host wrote it). Both
are validated first; a damaged file is an error, never a partial export. <id> is a chat id or a
unique prefix of one ('context-engine chat --list' shows them). The document goes to stdout, or to
FILE (created readable by you only).

Options:
  -o, --out <file>     Write the document to this file instead of stdout

Exit codes: 0 ok · 2 bad usage or an ambiguous prefix · 4 no such chat, or its files are damaged
`;

export const PLUGINS_HELP = `Usage:
  context-engine plugins list [--json]
  context-engine plugins info <name> [--json]

Lists every context engine found (built-in, bundled plugins, the user plugin directory, npm
packages, general plugins), with its source, version and status — or why it is broken — and marks
the one config.yaml selects. The table fits the terminal width ($COLUMNS, else 80 when not a
terminal): long reasons and descriptions wrap. Exits 3 when the selected engine is not installed
or cannot be loaded.
`;

export const CONFIG_HELP = `Usage:
  context-engine config check [--config path] [--json]

Validates config.yaml (the file given, else ./config.yaml, else $CONTEXT_ENGINE_HOME/config.yaml)
and every engine's own section, and prints every problem at once, in line order, as
file:line:column. Exits 3 when the config has errors.
`;

export const NEW_ENGINE_HELP = `Usage:
  context-engine new-engine <name> [--dir <path>] [--description <text>]
                             [--core-from <folder|tarball>] [--kit-from <folder|tarball>]

Creates ./<name> (or --dir) with an npm engine package: @context-engine/core as a peer
dependency, a tsc build to dist/, an exports map, the contextEngine field, plugin.yaml, a
documented skeleton ContextEngine subclass and a test running the contract kit. Then:
  cd <name> && npm install && npm test

Before @context-engine/* is published, --core-from and --kit-from take local copies instead of the
registry: the package folders, or tarballs made with 'pnpm pack' (see the README's author path).
`;

export const LCM_HELP = `Usage:
  context-engine lcm list [--store <file|postgres://…>] [--schema <name>] [--json]
  context-engine lcm export --session <id|prefix> [--store <file|postgres://…>] [--schema <name>] [--out <file>]
  context-engine lcm import <file> [--store <file|postgres://…>] [--schema <name>] [--as <id>]

list shows the stored conversations: id, last use, size and first request. export and import move
one conversation between stores, losslessly: every message as stored, the summaries with their
lineage, and the active context. --session takes an id or a prefix naming one conversation.

The store is the one chat uses: engines.lcm.store (or store_env, or database_path) and
engines.lcm.schema from config.yaml, else $CONTEXT_ENGINE_HOME/data/lcm/lcm.sqlite. --store names
another: a SQLite file or a postgres:// (postgresql://) URL, schema from --schema (default lcm); any
other URL scheme is refused. list and export only read: a schema that does not exist is reported,
never created. A URL without a user name connects as PGUSER, else the operating-system user, as psql
does. A password belongs in PGPASSWORD or ~/.pgpass, and is never printed. Import refuses a session
that already holds messages; --as imports under another session id.
`;

export const HELP_BY_COMMAND: Record<string, string> = {
  lcm: LCM_HELP,
  "new-engine": NEW_ENGINE_HELP,
  replay: REPLAY_HELP,
  chat: CHAT_HELP,
  plugins: PLUGINS_HELP,
  config: CONFIG_HELP,
};
