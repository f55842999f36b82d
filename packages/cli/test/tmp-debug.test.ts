import { ContextCompressor } from "@context-engine/compressor";
import { createEstimator, contentText } from "@context-engine/core";
import { readSessions, resolveDataDir, splitSession } from "@context-engine/sessions";
import { it } from "vitest";
import { runReplay } from "../src/replay/run.js";
it("debug", async () => {
  const all = await readSessions(`${resolveDataDir()}/agent-traces/mini-swe-agent-gemini3pro`);
  const s = all.find((x) => x.id.includes("13091"))!;
  const c = createEstimator();
  const { preamble, turns } = splitSession(s.messages);
  console.log("preamble", preamble.map((m) => [m.role, c.countMessage(m)]));
  console.log("turn0 user", c.countMessage(turns[0]!.user), "steps", turns[0]!.steps.length, turns[0]!.steps.slice(0, 12).map((m) => [m.role, c.countMessage(m)]));
  const big = turns[0]!.steps.map((m, i) => [i, m.role, c.countMessage(m)] as const).filter((x) => x[2] > 2000);
  console.log("big", big);
  const report = await runReplay({ sessions: [s], engines: ["compressor"], createEngine: async (_n, ctx) => new ContextCompressor({ contextLength: ctx.contextLength, model: ctx.model, logger: { debug() {}, info: (m, d) => console.log("INFO", m, JSON.stringify(d)?.slice(0, 300)), warn: (m, d) => console.log("CWARN", m, JSON.stringify(d)?.slice(0, 300)), error() {} } }), contextLength: 8000, counter: c, dataDir: "/tmp/dbg", hostConfig: {} , logger: { debug() {}, info() {}, warn: (m, d) => console.log("WARN", m, JSON.stringify(d)?.slice(0, 300)), error: (m, d) => console.log("ERR", m, JSON.stringify(d)?.slice(0, 300)) } });
  const run = report.sessions[0]!.runs[0]!;
  console.log(run.errors, run.requests.slice(-5).map((r) => JSON.stringify(r).slice(0, 200)));
}, 120000);
