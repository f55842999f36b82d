/**
 * Token counting benchmark: estimator vs exact (o200k_base) throughput, and
 * cached vs uncached counting of a 10,000-message conversation.
 * Run: pnpm bench (or `npx tsx bench/tokens.ts` in this package).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createEstimator, createMessageCounter, createTiktokenCounter, estimateTextTokens, type Message } from "../src/index.js";

function corpus(): string {
  const dir = process.env.CONTEXT_ENGINE_DATA_DIR ?? join(process.cwd(), "../../../shared/data");
  const traj = join(dir, "agent-traces/mini-swe-agent-gemini3pro");
  if (existsSync(traj)) {
    const file = readdirSync(traj).find((f) => f.endsWith(".traj.json"));
    if (file) {
      const data = JSON.parse(readFileSync(join(traj, file), "utf8")) as { messages: { content: string }[] };
      return data.messages.map((m) => m.content).join("\n");
    }
  }
  return Array.from({ length: 4000 }, (_, i) => `def handler_${i}(request):\n    return {"status": ${i % 500}, "path": "/api/v1/items/${i}"}\n`).join("");
}

function time(fn: () => void, repeat = 5): number {
  fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const text = corpus();
const mb = text.length / 1e6;
const exact = await createTiktokenCounter("o200k_base");
const tEst = time(() => estimateTextTokens(text));
const tExact = time(() => exact.countText(text), 3);
const estTokens = estimateTextTokens(text);
const exactTokens = exact.countText(text);
console.log(`text: ${(mb).toFixed(2)} MB, exact ${exactTokens} tokens, estimate ${estTokens} (${((estTokens / exactTokens - 1) * 100).toFixed(1)}%)`);
console.log(`estimator: ${tEst.toFixed(2)} ms  (${(mb / (tEst / 1000)).toFixed(0)} MB/s)`);
console.log(`exact o200k_base: ${tExact.toFixed(1)} ms  (${(mb / (tExact / 1000)).toFixed(1)} MB/s)  → estimator is ${(tExact / tEst).toFixed(0)}× faster`);

const messages: Message[] = Array.from({ length: 10_000 }, (_, i) =>
  i % 3 === 2
    ? ({ role: "tool", tool_call_id: `c${i}`, content: `output line ${i}\n`.repeat(20) } as Message)
    : ({ role: i % 3 ? "assistant" : "user", content: `step ${i}: please look at src/module_${i}.ts and fix the failing test `.repeat(4) } as Message),
);
for (const [label, make] of [
  ["estimator", () => createEstimator()],
  ["exact", () => createMessageCounter("o200k", true, (t) => exact.countText(t))],
] as const) {
  const uncached = time(() => make().countMessages(messages), 3);
  const counter = make();
  counter.countMessages(messages);
  const cached = time(() => counter.countMessages(messages));
  const grown = [...messages, { role: "user", content: "one more question" } as Message];
  const t = performance.now();
  counter.countMessages(grown);
  const incr = performance.now() - t;
  console.log(
    `10,000 messages, ${label}: uncached ${uncached.toFixed(1)} ms, cached ${cached.toFixed(2)} ms, +1 message ${incr.toFixed(2)} ms`,
  );
}
