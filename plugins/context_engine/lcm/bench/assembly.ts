/**
 * Assembly latency at 100,000 stored messages (target: p95 ≤ 5 ms).
 *
 * Builds one conversation of 100k agent-like messages (tool calls, results of
 * varying size), a summary DAG over all but the newest 600 (leaves of 100
 * messages, condensed by 4 up to the top), and measures `assembleContext` with
 * a 96k-token budget: cold (no row cache: every row read from SQLite) and warm
 * (immutable-row cache, the engine's steady state). A second conversation of
 * 100k messages that was never compacted measures the worst case: the whole
 * history in the frontier, of which only the budget is read.
 *
 *   npx tsx bench/assembly.ts [--messages 100000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { estimateTextTokens } from "@context-engine/core";
import { assembleContext, RowCache } from "../src/assembly/assembler.js";
import { deterministicSummary } from "../src/compaction/fallback.js";
import { openLcmStore } from "../src/store/index.js";
import type { FrontierItemKey, LcmStore } from "../src/store/types.js";

const argIndex = process.argv.indexOf("--messages");
const TOTAL = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 100_000;
const TAIL = 600;
const LEAF = 100;
const FANOUT = 4;
const BUDGET = 96_000;
const RUNS = 400;

const WORDS = "alpha beta gamma delta parser config module cache retry socket buffer index token schema route handler".split(" ");
let seed = 42;
function rand(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
function words(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += (i ? " " : "") + WORDS[Math.floor(rand() * WORDS.length)];
  return s;
}

/** Agent-like messages: user, assistant with a tool call, tool result, assistant answer. */
let call = 0;
let step = 0;
function generate(total: number): Message[] {
  const out: Message[] = [];
  while (out.length < total) {
    const t = step++;
    out.push({ role: "user", content: `step ${t}: check src/mod${t % 97}.ts ${words(10)}` });
    const id = `call_${call++}`;
    out.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ cmd: `grep -n ${words(2)} src/mod${t % 97}.ts` }) } }] });
    out.push({ role: "tool", tool_call_id: id, content: `${id}: ${words(20 + Math.floor(rand() * 300))}` });
    out.push({ role: "assistant", content: `done ${t}: ${words(15)}` });
  }
  return out.slice(0, total);
}

/** Ingest `total` generated messages in batches, never holding them all (keeps the heap small for the timings). */
function ingestAll(store: LcmStore, conversationId: number, total: number): number {
  seed = 42;
  call = 0;
  step = 0;
  const started = performance.now();
  for (let i = 0; i < total; i += 1_000) {
    store.ingest(conversationId, generate(Math.min(1_000, total - i)), { mode: "append" });
  }
  return performance.now() - started;
}

/** A DAG over everything but the tail; the frontier becomes [top summaries…, tail messages…]. */
function buildDag(store: LcmStore, conversationId: number, total: number): { summaries: number; roots: number } {
  const stored = store.getMessages(conversationId, { toSeq: total - TAIL - 1 });
  let level: Array<{ id: string; tokens: number }> = [];
  let count = 0;
  store.transaction(() => {
    for (let i = 0; i < stored.length; i += LEAF) {
      const chunk = stored.slice(i, i + LEAF);
      const source = chunk.map((m) => `[#${m.seq} ${m.role}]\n${m.text}`).join("\n\n");
      const tokens = chunk.reduce((a, m) => a + m.tokens, 0);
      const content = deterministicSummary(source, tokens, 400);
      const res = store.commitSummary({ conversationId, kind: "leaf", depth: 0, content, tokens: estimateTextTokens(content), sourceMessageIds: chunk.map((m) => m.id), level: "fallback" });
      if (!res.ok) throw new Error(res.detail);
      level.push({ id: res.summary.id, tokens: res.summary.tokens });
      count++;
    }
    let depth = 1;
    while (level.length > FANOUT * 2) {
      const next: Array<{ id: string; tokens: number }> = [];
      // Keep the newest few of each level uncondensed, as compaction does.
      const keep = level.length % FANOUT;
      for (let i = 0; i + FANOUT <= level.length - keep; i += FANOUT) {
        const children = level.slice(i, i + FANOUT);
        const content = `depth ${depth} over ${children.map((c) => c.id).join(", ")}: ${words(200)}`;
        const res = store.commitSummary({ conversationId, kind: "condensed", depth, content, tokens: estimateTextTokens(content), childSummaryIds: children.map((c) => c.id), level: "normal" });
        if (!res.ok) throw new Error(res.detail);
        next.push({ id: res.summary.id, tokens: res.summary.tokens });
        count++;
      }
      level = [...next, ...level.slice(level.length - keep)];
      depth++;
    }
  });
  const tail = store.getMessages(conversationId, { fromSeq: total - TAIL });
  const keys: FrontierItemKey[] = [
    ...level.map((s) => ({ kind: "summary" as const, summaryId: s.id })),
    ...tail.map((m) => ({ kind: "message" as const, messageId: m.id })),
  ];
  store.setFrontier(conversationId, keys);
  return { summaries: count, roots: level.length };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Figures {
  wallP95: number;
  cpuP95: number;
}

/**
 * Wall-clock and CPU time per call. On a shared machine the wall clock also
 * counts time slices given to other processes; CPU time (user + system of this
 * process) does not, so both are printed.
 */
function measure(label: string, fn: () => { tokens: number; shownItems: number }, before?: () => void, runs = RUNS): Figures {
  for (let i = 0; i < 10; i++) {
    before?.();
    fn();
  }
  const wall: number[] = [];
  const cpu: number[] = [];
  let last = { tokens: 0, shownItems: 0 };
  for (let i = 0; i < runs; i++) {
    before?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    last = fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const f = { wallP95: percentile(wall, 95), cpuP95: percentile(cpu, 95) };
  console.log(
    `${label.padEnd(44)} wall p50 ${percentile(wall, 50).toFixed(2)} / p95 ${f.wallP95.toFixed(2)} / p99 ${percentile(wall, 99).toFixed(2)} ms;` +
      ` cpu p50 ${percentile(cpu, 50).toFixed(2)} / p95 ${f.cpuP95.toFixed(2)} ms  (${last.shownItems} items, ${last.tokens} tokens)`,
  );
  return f;
}

const dir = mkdtempSync(join(tmpdir(), "lcm-bench-assembly-"));
try {
  const store = openLcmStore({ dataDir: dir, redaction: false });
  const head: Message[] = [{ role: "system", content: "You are a careful coding agent." }];

  const compacted = store.conversation("compacted");
  const ingestMs = ingestAll(store, compacted.id, TOTAL);
  const dag = buildDag(store, compacted.id, TOTAL);
  const raw = store.conversation("never-compacted");
  ingestAll(store, raw.id, TOTAL);

  console.log(`LCM assembly benchmark: ${TOTAL.toLocaleString()} messages per conversation, budget ${BUDGET.toLocaleString()} tokens, ${RUNS} runs`);
  console.log(`  setup: ingest ${(TOTAL / (ingestMs / 1000)).toFixed(0)} msg/s; DAG of ${dag.summaries} summaries, ${dag.roots} roots + ${TAIL} tail messages in the frontier`);

  // The engine's steady state: each turn appends new messages, then assembles with the row cache of earlier turns.
  const warm = new RowCache();
  const perTurn = (conversationId: number) => {
    let turn = 0;
    return {
      before: () => {
        store.ingest(conversationId, generate(4).map((m, i) => ({ ...m, content: m.content === null ? null : `turn ${turn} #${i} ${String(m.content)}` }) as Message), { mode: "append" });
        turn++;
      },
      run: () => assembleContext(store, warm, { conversationId, head, budget: BUDGET, largeMessageTokens: 6_000 }),
    };
  };
  const compactedTurn = perTurn(compacted.id);
  const rawTurn = perTurn(raw.id);
  const p95 = [
    measure("per turn, compacted history (target)", compactedTurn.run, compactedTurn.before),
    measure("per turn, never-compacted history (target)", rawTurn.run, rawTurn.before),
  ];
  console.log("  cold start (first assembly after a restart: every shown row decoded from SQLite; informational):");
  measure("  cold, compacted history", () => assembleContext(store, new RowCache(), { conversationId: compacted.id, head, budget: BUDGET, largeMessageTokens: 6_000 }), undefined, 40);
  measure("  cold, never-compacted history", () => assembleContext(store, new RowCache(), { conversationId: raw.id, head, budget: BUDGET, largeMessageTokens: 6_000 }), undefined, 40);
  const cores = availableParallelism();
  const load = loadavg()[0]!;
  const wallWorst = Math.max(...p95.map((f) => f.wallP95));
  const cpuWorst = Math.max(...p95.map((f) => f.cpuP95));
  // On a machine busier than its cores, wall time measures the neighbours; judge on CPU time then.
  const busy = load > cores;
  const judged = busy ? cpuWorst : wallWorst;
  console.log(
    `assembly p95 per turn at ${TOTAL.toLocaleString()} messages: wall ${wallWorst.toFixed(2)} ms, cpu ${cpuWorst.toFixed(2)} ms ` +
      `(load ${load.toFixed(1)} on ${cores} cores: judged on ${busy ? "CPU" : "wall"} time) — target <= 5 ms: ${judged <= 5 ? "PASS" : "FAIL"}`,
  );
  if (judged > 5) process.exitCode = 1;
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
