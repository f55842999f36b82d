#!/usr/bin/env node
// The long real-OpenClaw scenario (Node 24; minutes per turn on a loaded machine, so not in CI):
// a gateway session of many turns with long messages on a 24k window, the gateway killed and
// restarted, `openclaw sessions compact`, more turns, then checks on what the model received and
// what the store holds. Prints a report (paste its summary into the package README).
// Usage: node ../../scripts/with-node.mjs 24 … or `npx -y node@24 e2e/long-scenario.mjs [turns]`.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dropSchema, makeHome, npmPack, pgFrom, prepareInstall, startModel, storedRows, storedSessions } from "./harness.mjs";

const TURNS = Number(process.argv[2] ?? 8);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const WINDOW = 24_000;
const url = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const work = mkdtempSync(join(tmpdir(), "oc-long-"));
const schema = `oc_long_${randomBytes(5).toString("hex")}`;
const session = `long-${randomBytes(4).toString("hex")}`;
const token = randomBytes(12).toString("hex");
const gatewayPort = 20_000 + Math.floor(Math.random() * 20_000);
const log = (...a) => console.log(`[long ${new Date().toISOString().slice(11, 19)}]`, ...a);
const report = { turns: [], checks: {} };
// About 2.4k tokens a turn (FILLER_REPEAT=120): a few turns overflow the ~8.8k tokens OpenClaw leaves for history on a 24k window.
const FILLER_REPEAT = Number(process.env.FILLER_REPEAT ?? 120);
const filler = (i) => `Background for turn ${i}: ${"the harbour master logged the tides, the ferries and the weather for the day ".repeat(FILLER_REPEAT)}`;

const install = await prepareInstall(work, { cache: true });
const model = await startModel(work);
const home = await makeHome(install, join(work, "home"), { port: model.port, window: WINDOW, pluginConfig: { store: url, schema } });
const gwEnv = { OPENCLAW_GATEWAY_TOKEN: token, OPENCLAW_GATEWAY_PORT: String(gatewayPort) };

/** Start the gateway; under heavy load OpenClaw can miss its own start deadline, so up to three tries. */
async function gatewayUp(h = home, env = gwEnv) {
  for (let attempt = 1; ; attempt++) {
    const gw = startGateway(h, env);
    if ((await gw.ready) || attempt === 3) return gw;
    log(`gateway start ${attempt} failed, retrying`);
    gw.child.kill("SIGKILL");
  }
}

function startGateway(h, env) {
  const child = spawn(process.execPath, [install.openclaw, "gateway", "run", "--port", env.OPENCLAW_GATEWAY_PORT, "--bind", "loopback", "--auth", "token", "--token", token, "--allow-unconfigured"], {
    cwd: install.env,
    env: { ...process.env, NODE_ENV: undefined, VITEST: undefined, OPENCLAW_HOME: h.dir, ...env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const ready = new Promise((resolve) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const ready = /\[gateway\]\s+ready/.test(out);
      if (ready || Date.now() - started > 300_000 || child.exitCode !== null) {
        clearInterval(poll);
        if (!ready) log(`gateway did not start:\n${out.slice(-2000)}`);
        resolve(ready);
      }
    }, 1000);
  });
  return { child, ready, output: () => out };
}

async function gatewayTurn(i, message, h = home, env = gwEnv, sessionId = session, engine = "lcm") {
  const r = await h.cli(["agent", "--agent", "main", "--session-id", sessionId, "--message", message, "--json"], { env, timeoutMs: 900_000 });
  const failed = /Preflight compaction required but failed|nothing assembled/.test(r.stdout + r.stderr);
  report.turns.push({ engine, turn: i, code: r.code, seconds: Math.round(r.ms / 1000), wedged: failed });
  log(`turn ${i}: exit ${r.code} in ${Math.round(r.ms / 1000)} s${failed ? " (WEDGED)" : ""}`);
  if (r.code !== 0) log((r.stderr + r.stdout).slice(-1500));
  return r;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Wait until the model has received a request whose messages match `test` (true), or `ms` passed (false). */
async function requestSeen(test, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(1000)) {
    if (model.requests().some((r) => test(JSON.stringify(r.body.messages ?? [])))) return true;
  }
  return false;
}
const textOfContent = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p?.text ?? "").join(" ") : "");

async function compressorPhase() {
  const textOf = textOfContent;
  const tarballs = join(work, "tarballs");
  const packed = await npmPack(join(packageDir, "e2e", "compressor-plugin"), tarballs);
  const cHome = await makeHome(install, join(work, "home-compressor"), { port: model.port, window: WINDOW, pluginTarball: packed, pluginId: "context-engine-compressor", pluginConfig: { threshold_tokens: 6_000, protect_last_n: 2 } });
  const cEnv = { OPENCLAW_GATEWAY_TOKEN: token, OPENCLAW_GATEWAY_PORT: String(gatewayPort + 1) };
  const cSession = `comp-${randomBytes(4).toString("hex")}`;
  const from = model.requests().length;
  const gw = await gatewayUp(cHome, cEnv);
  const C_TURNS = 6;
  for (let i = 0; i < C_TURNS; i++) await gatewayTurn(i, `Remember fact-c${i}. ${filler(i)}`, cHome, cEnv, cSession, "compressor");
  gw.child.kill("SIGTERM");
  // The turns' own requests: the last user message (past OpenClaw's internal-context one) is the turn's (not a memory flush).
  const pending = (messages) => {
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "user"; i--) {
      const text = textOf(messages[i].content);
      if (!text.trimStart().startsWith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")) return text;
    }
    return "";
  };
  const mine = model.requests().slice(from).filter((r) => Array.isArray(r.body.messages) && /Remember fact-c\d+\./.test(pending(r.body.messages)));
  const rows = mine.map((r) => {
    const text = JSON.stringify(r.body.messages);
    const own = Number(pending(r.body.messages).match(/Remember fact-c(\d+)\./)[1]);
    return { summary: text.includes("[CONTEXT SUMMARY"), userTurnsVerbatim: r.body.messages.filter((m) => m.role === "user" && /^(\[[^\]]*\] )?Remember fact-c\d+\./.test(textOf(m.content).trimStart())).length, turn: own, tokens: Math.ceil(text.length / 4) };
  });
  const first = rows.findIndex((r) => r.summary);
  const after = first < 0 ? [] : rows.slice(first);
  return {
    turns: report.turns.filter((t) => t.engine === "compressor").map((t) => t.code),
    requests: rows.length,
    firstCompactedRequest: first,
    perRequest: rows.map((r) => `${r.turn}:${r.summary ? "S" : "-"}${r.userTurnsVerbatim}/${r.turn + 1}~${r.tokens}`),
    // Sticks: every request after the first compaction still carries the summary and fewer turns verbatim than it has.
    sticks: first >= 0 && after.every((r) => r.summary && r.userTurnsVerbatim < r.turn + 1),
  };
}

const toolFile = join(work, "harbour-notes.txt");
writeFileSync(toolFile, "Harbour notes: fact-tool-read is in this file.\n");

try {
  let gw = await gatewayUp();
  log(`gateway ready: ${await gw.ready}`);
  const half = Math.ceil(TURNS / 2);
  for (let i = 0; i < half - 1; i++) await gatewayTurn(i, `Remember fact-${i}. ${filler(i)}`);
  // A turn the gateway is killed in: the model never answers it; OpenClaw's restart recovery re-runs it.
  const crashed = half - 1;
  const inFlight = gatewayTurn(crashed, `Remember fact-${crashed}. [[hold:crash]] ${filler(crashed)}`);
  report.checks.crashTurnReachedModel = await requestSeen((t) => t.includes("[[hold:crash]]"), 600_000);
  log("killing the gateway mid-turn");
  gw.child.kill("SIGKILL");
  await inFlight;
  report.turns.at(-1).crashed = true;
  gw = await gatewayUp();
  log(`gateway ready again: ${await gw.ready}`);
  // OpenClaw's recovery prompt: the user's text either queued into it or already in the transcript before it.
  report.checks.recoveryRan = await requestSeen((t) => (t.includes("Queued user message") || t.includes("interrupted by a gateway restart")) && t.includes("[[hold:crash]]"), 600_000);
  // Let the recovered run commit before the next turn (new turns are refused until it finishes).
  await sleep(20_000);
  log(`recovery re-ran the crashed turn: ${report.checks.recoveryRan}`);
  const compact = await home.cli(["sessions", "compact", `agent:main:explicit:${session}`], { env: gwEnv, timeoutMs: 600_000 });
  report.checks.manualCompact = { code: compact.code, output: (compact.stdout + compact.stderr).replace(/\s+/g, " ").slice(-300) };
  log(`sessions compact: exit ${compact.code}`);
  for (let i = half; i < TURNS; i++) {
    // One tool turn (the model calls `read`), the rest plain.
    const tool = i === half ? ` Read [[read:${toolFile}]] first.` : "";
    await gatewayTurn(i, `Remember fact-${i}.${tool} ${filler(i)}`);
  }
  await gatewayTurn(TURNS, "Which facts do you remember? List them all.");
  gw.child.kill("SIGTERM");

  // What reached the model: within the window, compaction only once the window needed it, true notes.
  const requests = model.requests().filter((r) => Array.isArray(r.body.messages));
  const sizes = requests.map((r) => Math.ceil(JSON.stringify(r.body.messages).length / 4));
  const withBlock = requests.map((r) => JSON.stringify(r.body.messages).includes("<lcm_context>"));
  const withSummary = requests.map((r) => JSON.stringify(r.body.messages).includes("<summary "));
  const emptyPreamble = requests.filter((r) => {
    const text = JSON.stringify(r.body.messages);
    return text.includes("The summaries below") && !text.includes("<summary ");
  }).length;
  // A quote of the request must be the request's own turn (OpenClaw sends the turn's message after the history).
  const textOf = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p?.text ?? "").join(" ") : "");
  const staleQuotes = requests.filter((r) => {
    const texts = r.body.messages.filter((m) => m.role === "user").map((m) => textOf(m.content));
    const own = texts.filter((t) => !t.includes("<lcm_context>")).at(-1)?.match(/fact-(\d+)/)?.[1];
    const quoted = texts.filter((t) => t.includes("<lcm_context>")).map((t) => t.split("quoted verbatim")[1] ?? "").join(" ").match(/fact-(\d+)/)?.[1];
    return quoted !== undefined && quoted !== own;
  }).length;
  const last = requests.at(-1);
  report.checks.requests = { count: requests.length, maxTokensEstimate: Math.max(0, ...sizes), window: WINDOW, firstWithNote: withBlock.indexOf(true), firstWithSummaries: withSummary.indexOf(true), withNote: withBlock.filter(Boolean).length, emptyPreambleNotes: emptyPreamble, staleQuotes, latestRequestWording: requests.filter((r) => JSON.stringify(r.body.messages).includes("latest request")).length };
  report.checks.lastRequestHasRecentTurnVerbatim = JSON.stringify(last?.body.messages ?? []).includes(`Remember fact-${TURNS - 1}.`);
  report.checks.lastAnswerFacts = (JSON.stringify(last?.body.messages ?? []).match(/fact-\d+/g) ?? []).filter((v, i, a) => a.indexOf(v) === i).length;

  const pg = pgFrom(home);
  const rows = await storedRows(pg, url, schema, session);
  const users = rows.filter((r) => r.role === "user").map((r) => JSON.stringify(r.message.content));
  report.checks.stored = {
    rows: rows.length,
    eachUserMessageOnce: Array.from({ length: TURNS }, (_, i) => users.filter((u) => u.includes(`Remember fact-${i}.`)).length).every((n) => n === 1),
    timesStored: Array.from({ length: TURNS }, (_, i) => users.filter((u) => u.includes(`Remember fact-${i}.`)).length),
    sequence: rows.map((r) => `${r.role[0]}:${JSON.stringify(r.message.content).replace(/\\n|\s+/g, " ").slice(1, 36)}`),
    internalSessions: (await storedSessions(pg, url, schema)).filter((s) => s.startsWith("internal-session-effects")).length,
  };
  // Tool rounds whole: every stored result has its call stored before it, every call its result.
  const callIds = rows.flatMap((r) => (r.role === "assistant" ? (r.message.tool_calls ?? []).map((c) => c.id) : []));
  const resultIds = rows.filter((r) => r.role === "tool").map((r) => r.message.tool_call_id);
  report.checks.stored.toolCalls = callIds.length;
  report.checks.stored.orphanResults = resultIds.filter((id) => !callIds.includes(id)).length;
  report.checks.stored.callsWithoutResult = callIds.filter((id) => !resultIds.includes(id)).length;
  // OpenClaw rewrites the tool-call ids the model gave (`call_1` → `call1`, its strict id policy for
  // openai-completions) in the transcript it passes afterwards; the commits after it must not store the
  // tool turn again under the new ids (one stored call and one result in all).
  const idsSentLater = requests.flatMap((r) => r.body.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  report.checks.toolIds = {
    modelGave: "call_1",
    seenByModelLater: [...new Set(idsSentLater)],
    stored: callIds,
    rewrittenByOpenClaw: idsSentLater.length > 0 && !idsSentLater.includes("call_1"),
  };
  report.checks.stored.crashedTurnUserText = users.filter((u) => u.includes(`Remember fact-${half - 1}.`)).length;
  await dropSchema(pg, url, schema).catch(() => {});

  // The compressor engine in the slot (a test-only plugin, packed and installed with OpenClaw's CLI like
  // LCM's): a gateway session on its own home; once it compacts, every later request keeps its summary
  // and stays shorter than the full history (the compaction sticks across turns).
  report.checks.compressor = await compressorPhase();
} finally {
  model.stop();
}
console.log(JSON.stringify(report, null, 2));
// The checks this scenario stands for: a failure exits 1 (the report above says which).
const st = report.checks.stored;
const failed = [
  ["a turn wedged", report.turns.some((t) => t.wedged)],
  ["a turn failed", report.turns.some((t) => t.code !== 0 && !t.crashed)],
  ["a user message not stored exactly once", !st?.eachUserMessageOnce],
  ["the crashed turn's own words not stored once", st?.crashedTurnUserText !== 1],
  ["a tool result stored without its call, or a call without its result", st?.orphanResults !== 0 || st?.callsWithoutResult !== 0 || !(st?.toolCalls > 0)],
  ["the tool turn stored again after OpenClaw rewrote its call ids", st?.toolCalls !== 1],
  ["the restart recovery did not re-run the crashed turn", !report.checks.recoveryRan],
  ["openclaw sessions compact failed", report.checks.manualCompact?.code !== 0],
  ["an internal run stored as a conversation", st?.internalSessions !== 0],
  ["a compressor turn failed", !report.checks.compressor?.turns?.length || report.checks.compressor.turns.some((c) => c !== 0)],
  ["the compressor's compaction did not stick across turns", !report.checks.compressor?.sticks],
].filter(([, bad]) => bad).map(([what]) => what);
console.log(failed.length ? `FAILED: ${failed.join("; ")}` : "ALL CHECKS PASSED");
if (failed.length) process.exitCode = 1;
