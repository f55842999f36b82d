import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createEstimator } from "@context-engine/core";
import { commaList, parseCommandArgs, positiveInt } from "../args.js";
import { EndpointError, EXIT, InputError, UsageError } from "../errors.js";
import { createPalette } from "../format/color.js";
import { formatInt } from "../format/numbers.js";
import { createProgress } from "../format/progress.js";
import { REPLAY_HELP } from "../help.js";
import { useColor, type CliIO } from "../io.js";
import { createCliLogger, createWarningTally } from "../logger.js";
import { DEMO_SESSION_FILE, packageDataDir } from "../paths.js";
import type { EngineEnvironment } from "../replay/engines.js";
import type { ChatModel } from "@context-engine/core";
import type { LoadedConfig } from "@context-engine/plugin-loader";
import { ENDPOINT_HINTS } from "./endpoint.js";
import { cliVersion } from "../version.js";
import { defaultReportDir, writeReportFile } from "../replay/report-file.js";
import { replayConversationIds } from "../replay/conversation.js";

/** The demo compares these two on a window small enough to force compaction. */
export const DEMO_ENGINES = ["compressor", "lcm"] as const;
export const DEMO_CONTEXT_LENGTH = 12_000;
/** Without --context-length or model.context_length. */
export const DEFAULT_REPLAY_CONTEXT_LENGTH = 128_000;

const FORMATS = ["openai-jsonl", "mini-swe-agent", "swe-agent", "openhands", "tau-bench", "locomo"] as const;

export async function replayCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("replay", argv, {
    demo: { type: "boolean" },
    engine: { type: "string", short: "e", multiple: true },
    "context-length": { type: "string", short: "n" },
    model: { type: "string", short: "m" },
    format: { type: "string" },
    limit: { type: "string" },
    "max-turns": { type: "string" },
    json: { type: "boolean" },
    report: { type: "string" },
    "no-report": { type: "boolean" },
    "keep-data": { type: "boolean" },
    "no-progress": { type: "boolean" },
    "live-summaries": { type: "boolean" },
    conversation: { type: "string" },
  });
  if (values.help) {
    io.stdout.write(REPLAY_HELP);
    return EXIT.ok;
  }
  if (values.demo && positionals.length > 0) throw new UsageError("replay: give session paths or --demo, not both");
  if (!values.demo && positionals.length === 0) {
    throw new UsageError("replay: missing the session file or folder to replay", {
      hints: ["Example: context-engine replay sessions/ --engine compressor,lcm", "Or try the bundled session: context-engine replay --demo"],
    });
  }
  if (values.report !== undefined && values["no-report"]) throw new UsageError("replay: --report and --no-report contradict each other");
  const format = values.format;
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`replay: --format must be one of ${FORMATS.join(", ")}; got ${JSON.stringify(format)}`);
  }
  const continueId = values.conversation?.trim();
  if (values.conversation !== undefined && !continueId) throw new UsageError("replay: --conversation needs the id of the conversation to continue");
  const limit = positiveInt("limit", values.limit);
  const maxTurns = positiveInt("max-turns", values["max-turns"]);
  const contextLengthFlag = positiveInt("context-length", values["context-length"]);
  const requestedEngines = commaList(values.engine);

  // Inputs first: a missing file is the most common mistake and needs no config.
  const inputs = values.demo ? [demoSessionPath()] : positionals.map((p) => resolve(io.cwd, p));
  for (const path of inputs) {
    if (!existsSync(path)) throw new InputError(`no such file or folder: ${path}`);
  }

  const stderrPalette = createPalette(useColor(io.stderr, io.env) && !values["no-color"]);
  const progress = createProgress(io.stderr, { enabled: !values["no-progress"], label: "replay" });
  const tally = values.verbose ? null : createWarningTally((line) => progress.log(stderrPalette.yellow(line)));
  const logger = tally?.logger ?? createCliLogger((line) => progress.log(stderrPalette.dim(line)), "info");

  const [{ loadConfig }, sessionsPkg, { chooseEngines, discoverEngineNames, pluginEngineFactory }, { runReplay, plannedRequests }, rec] = await Promise.all([
    import("@context-engine/plugin-loader"),
    import("@context-engine/sessions"),
    import("../replay/engines.js"),
    import("../replay/run.js"),
    import("../replay/recoverability.js"),
  ]);
  const sessions = [];
  for (const path of inputs) {
    const remaining = limit === undefined ? undefined : limit - sessions.length;
    if (remaining !== undefined && remaining <= 0) break;
    const read = await sessionsPkg.readSessions(path, {
      ...(format ? { format: format as (typeof FORMATS)[number] } : {}),
      ...(remaining !== undefined ? { limit: remaining } : {}),
    });
    sessions.push(...read);
  }
  if (continueId && sessions.length > 1) {
    throw new UsageError(`replay: --conversation continues one conversation, but ${sessions.length} sessions were read`, {
      hints: ["Replay one session (a file, or --limit 1) into it."],
    });
  }
  if (sessions.length === 0) {
    throw new InputError(`no recorded sessions found in ${inputs.join(", ")}${format ? ` (format ${format})` : ""}`, {
      hints: ["Supported: OpenAI chat JSON/JSONL, mini-swe-agent, SWE-agent, OpenHands, tau-bench, LoCoMo."],
    });
  }

  const loaded = await loadConfig({ cwd: io.cwd, env: { ...io.env }, ...(values.config ? { path: values.config } : {}) });
  const envForEngines: EngineEnvironment = { cwd: io.cwd, env: { ...io.env }, loaded, logger };
  if (values["live-summaries"]) envForEngines.summaryModel = await summaryModelFromConfig(loaded, io);
  let wanted = requestedEngines;
  if (values.demo && wanted.length === 0) {
    // An installation without the LCM package still gets a demo, with a notice.
    const usable = new Set((await discoverEngineNames(envForEngines)).filter((l) => l.status === "ok").map((l) => l.name));
    wanted = DEMO_ENGINES.filter((n) => usable.has(n));
    const absent = DEMO_ENGINES.filter((n) => !usable.has(n));
    if (absent.length) logger.warn(`the demo compares ${DEMO_ENGINES.join(" and ")}, but ${absent.join(", ")} is not installed here (npm i @context-engine/lcm); replaying with ${wanted.join(", ")}`);
  }
  const engines = await chooseEngines(envForEngines, wanted);
  if (engines.length === 0) throw new UsageError("replay: no engine to replay with");

  const window = replayWindow(contextLengthFlag, values.demo === true, loaded);
  const contextLength = window.tokens;
  // Never silently: the window decides everything the report shows.
  progress.log(stderrPalette.dim(`context length ${formatInt(contextLength)} tokens: ${window.source}`));

  const dataDir = mkdtempSync(join(tmpdir(), "context-engine-replay-"));
  const counter = createEstimator();
  progress.setTotal(sessions.reduce((n, s) => n + plannedRequests(s, maxTurns), 0) * engines.length);
  let report;
  try {
    report = await runReplay({
      sessions,
      engines,
      createEngine: pluginEngineFactory(envForEngines),
      contextLength,
      counter,
      dataDir,
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      ...(values.model ? { model: values.model } : {}),
      hostConfig: hostSettings(loaded.config),
      conversationId: replayConversationIds(continueId ? { continueId } : {}),
      isLossless: rec.isLossless,
      checkRecoverable: rec.checkRecoverable,
      logger,
      cliVersion: cliVersion(),
      onProgress: (event) => {
        if (event.type === "request") progress.tick(1, `${event.engine} · ${event.session}`);
        if (event.type === "run_finished" && event.metrics) {
          const s = event.metrics.summary;
          progress.log(
            stderrPalette.dim(
              `replayed ${event.session} with ${event.engine}: ${s.requests} requests, ${s.compactions} compactions, peak ${s.peakContext} tokens (${(s.wallMs / 1000).toFixed(1)} s)`,
            ),
          );
          // A store that outlives the replay: say which conversation this run wrote, to find or continue it.
          const c = event.metrics.conversation;
          if (c) progress.log(`${event.engine} stored this run as conversation ${c.id} in ${c.store}${continueId ? "" : " (continue it with --conversation)"}`);
        }
      },
    });
  } finally {
    progress.done();
    const warnings = tally?.summary();
    if (warnings) io.stderr.write(stderrPalette.yellow(warnings));
    if (values["keep-data"]) io.stderr.write(`Engine data kept in ${dataDir}\n`);
    else rmSync(dataDir, { recursive: true, force: true });
  }

  if (!values["no-report"]) {
    const { renderHtmlReport } = await import("../replay/render-html.js");
    const path = values.report ? resolve(io.cwd, values.report) : defaultReportPath(report.generatedAt);
    report.reportPath = path;
    writeReportFile(path, renderHtmlReport(report));
  }

  if (values.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const { renderReplayTables } = await import("../replay/render-table.js");
    const palette = createPalette(useColor(io.stdout, io.env) && !values["no-color"]);
    // Fit a terminal (or $COLUMNS); output into a pipe or file keeps every column.
    const columns = (io.stdout as { columns?: number }).columns ?? (Number(io.env.COLUMNS) || undefined);
    io.stdout.write(renderReplayTables(report, palette, columns ?? Number.POSITIVE_INFINITY));
    if (report.reportPath) io.stdout.write(`\nHTML report: ${report.reportPath}\n`);
  }
  return report.ok ? EXIT.ok : EXIT.check;
}

/** The window a replay uses and where it came from, in words for the user. */
export function replayWindow(flag: number | undefined, demo: boolean, loaded: LoadedConfig): { tokens: number; source: string } {
  if (flag !== undefined) return { tokens: flag, source: "from --context-length" };
  if (demo) return { tokens: DEMO_CONTEXT_LENGTH, source: "the demo's, small enough to force compaction (--context-length to change)" };
  const configured = loaded.config.model.context_length;
  if (configured !== undefined) {
    return { tokens: configured, source: `model.context_length in ${loaded.file ?? "config.yaml"}, the chat model's window (--context-length to replay at another)` };
  }
  return { tokens: DEFAULT_REPLAY_CONTEXT_LENGTH, source: "the default (--context-length, or model.context_length in config.yaml, to change)" };
}

function demoSessionPath(): string {
  const dir = packageDataDir();
  if (!dir) throw new InputError("the bundled demo session is missing from this installation (expected the package's data/ folder)");
  return join(dir, DEMO_SESSION_FILE);
}

function defaultReportPath(generatedAt: string): string {
  const stamp = generatedAt.replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  return join(defaultReportDir(), `replay-${stamp}.html`);
}

/** The host settings a replay honours from config.yaml: the compression timeout and per-model thresholds. */
function hostSettings(config: { compression?: { context_timeout_seconds?: number; model_thresholds?: Record<string, number> } }) {
  const out: { contextTimeoutSeconds?: number; modelThresholds?: Record<string, number> } = {};
  const c = config.compression;
  if (c?.context_timeout_seconds !== undefined) out.contextTimeoutSeconds = c.context_timeout_seconds;
  if (c?.model_thresholds && Object.keys(c.model_thresholds).length) out.modelThresholds = { ...c.model_thresholds };
  return out;
}

/** `--live-summaries`: the configured model endpoint, as chat uses it, for the engines' summaries. */
async function summaryModelFromConfig(loaded: LoadedConfig, io: CliIO): Promise<ChatModel> {
  const host = await import("@context-engine/host");
  let resolved;
  try {
    resolved = host.resolveModelConfig(loaded.config.model, { ...io.env }, loaded.file ?? "config.yaml");
  } catch (error) {
    throw new EndpointError(`--live-summaries needs a model endpoint: ${(error as Error).message.split("\n")[0]}`, { hints: ENDPOINT_HINTS });
  }
  if (!resolved.baseURL && !resolved.apiKey) {
    throw new EndpointError("--live-summaries needs a model endpoint: neither a base URL nor an API key is set", { hints: ENDPOINT_HINTS });
  }
  return host.createOpenAIChatModel({ model: resolved.model, apiKey: resolved.apiKey ?? "not-needed", ...(resolved.baseURL ? { baseURL: resolved.baseURL } : {}) });
}
