import { existsSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readSessions } from "@context-engine/sessions";
import { evalCodingSession, type SessionCodingRun } from "./coding.js";
import { readLocomo } from "./locomo-data.js";
import { evalConversation, type ConversationRun } from "./locomo.js";
import { renderTables, summarizeCoding, summarizeLocomo } from "./report.js";
import { findDataDir } from "./data-dir.js";
import { runHybridStep } from "./hybrid-step.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../..");

interface Args {
  conversations: number;
  sessions: number;
  out: string;
  only: "all" | "locomo" | "coding";
  /** The optional hybrid retrieval step (on when its model package is installed). */
  hybrid: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { conversations: Infinity, sessions: Infinity, out: join(here, "..", "latest.json"), only: "all", hybrid: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--conversations") args.conversations = Number(next());
    else if (a === "--sessions") args.sessions = Number(next());
    else if (a === "--out") args.out = resolve(next());
    else if (a === "--only") {
      const v = next();
      if (v !== "locomo" && v !== "coding" && v !== "all") throw new Error(`--only expects locomo, coding or all, got ${v}`);
      args.only = v;
    } else if (a === "--no-hybrid") args.hybrid = false;
    else if (a === "--") continue;
    else throw new Error(`unknown argument ${a} (expected --conversations N, --sessions N, --only locomo|coding, --out FILE, --no-hybrid)`);
  }
  return args;
}

/** The coding sessions replayed: every recorded coding-agent session under agent-traces (tau-bench is customer service, left out). */
export const CODING_DIRS = ["mini-swe-agent-gemini3pro", "swe-gym-openhands", "swe-agent-function-calling"];

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dataDir = findDataDir(repoRoot);
  const started = performance.now();
  let locomoRuns: ConversationRun[] = [];
  let convs: ReturnType<typeof readLocomo> = [];
  let codingRuns: SessionCodingRun[] = [];
  if (args.only !== "coding") {
    const file = join(dataDir, "locomo", "locomo7.json");
    convs = readLocomo(existsSync(file) ? file : join(dataDir, "locomo", "locomo10.json")).slice(0, args.conversations);
    for (const conv of convs) {
      const t = performance.now();
      locomoRuns.push(await evalConversation(conv));
      process.stderr.write(`locomo ${conv.id}: ${conv.turns.length} turns, ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
    }
  }
  if (args.only !== "locomo") {
    const sessions = [];
    for (const d of CODING_DIRS) {
      const path = join(dataDir, "agent-traces", d);
      if (existsSync(path)) sessions.push(...(await readSessions(path)).filter((s) => s.messages.length > 0));
    }
    for (const s of sessions.slice(0, args.sessions)) {
      const t = performance.now();
      codingRuns.push(await evalCodingSession(s));
      process.stderr.write(`coding ${s.id}: ${s.messages.length} messages, ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
    }
  }
  const locomo = locomoRuns.length ? summarizeLocomo(locomoRuns) : null;
  const coding = codingRuns.length ? summarizeCoding(codingRuns) : null;
  const hybrid = locomo && args.hybrid ? await runHybridStep(convs, locomo, locomoRuns) : null;
  const table = renderTables(locomo, coding) + (hybrid?.table ?? "");
  const result = {
    schema: "context-engine/eval@1",
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    seconds: Math.round((performance.now() - started) / 1000),
    locomo,
    coding,
    ...(hybrid ? { hybrid: hybrid.json } : {}),
    perConversation: locomoRuns.map((r) => ({ id: r.id, turns: r.turns, compactions: r.compactions, finalTokens: r.finalTokens })),
    perSession: codingRuns,
  };
  writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${table}\n${result.date} on ${result.machine}, ${result.seconds} s; JSON in ${args.out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
