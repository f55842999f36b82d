/**
 * Per-request overhead of the host with a non-implementing engine, against a
 * bare chat-completions call, on a 1,000-message conversation.
 *
 * Both sides go through the same ChatModel (`createOpenAIChatModel`) to the
 * same local HTTP server; calls are interleaved so machine noise hits both.
 * Because two HTTP calls are never equally fast on a busy machine, the host's
 * own time is also measured directly: the wall time of `send` minus the time
 * spent inside the provider call, relative to the bare call. It also proves
 * that inherited no-op hooks are never called.
 *
 * Run: pnpm bench (or npx tsx bench/overhead.ts). Target: overhead < 5%.
 */
import { ContextEngine, DEFAULT_HOOK } from "@context-engine/core";
import type { Message, Usage } from "@context-engine/core";
import { AgentHost, createOpenAIChatModel } from "../src/index.js";
import { FakeOpenAIServer } from "../test/support/fake-openai-server.js";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 150);
const WARMUP = 20;
const CONVERSATION = 1_000;

/** Implements only the four abstract members; every optional hook is inherited. */
class PlainEngine extends ContextEngine {
  get name() {
    return "plain";
  }
  updateFromResponse(usage: Usage) {
    this.recordUsage(usage);
  }
  shouldCompress(promptTokens?: number) {
    return (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens && this.thresholdTokens > 0;
  }
  compress(messages: Message[]) {
    return messages;
  }
}

/** The same, but it implements selectContext (returning null) and onTurnComplete: it pays for clones. */
class ObservingEngine extends PlainEngine {
  override selectContext() {
    return null;
  }
  override onTurnComplete() {}
}

function conversation(n: number): Message[] {
  const out: Message[] = [{ role: "system", content: "You are a careful coding agent. ".repeat(10) }];
  let i = 0;
  while (out.length < n) {
    out.push({ role: "user", content: `Request ${i}: please look at src/file_${i}.ts and fix the bug near line ${i * 7}.` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/file_${i}.ts` }) } }],
    });
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: `export function f${i}(x: number) {\n  return x * ${i};\n}\n`.repeat(3) });
    out.push({ role: "assistant", content: `Fixed the bug in src/file_${i}.ts: the multiplier was wrong.` });
    i++;
  }
  return out.slice(0, n);
}

/** Count calls of the optional hooks without removing the base class's no-op marker. */
function countHookCalls(engine: ContextEngine) {
  const counts = { selectContext: 0, onTurnComplete: 0 };
  return {
    counts,
    engine: new Proxy(engine, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if ((prop === "selectContext" || prop === "onTurnComplete") && typeof value === "function") {
          const wrapped = function (this: unknown, ...args: unknown[]) {
            counts[prop]++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
          if ((value as { [DEFAULT_HOOK]?: boolean })[DEFAULT_HOOK]) Object.defineProperty(wrapped, DEFAULT_HOOK, { value: true });
          return wrapped;
        }
        return value;
      },
    }),
  };
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
  return { mean, median, p90 };
}

async function measure(label: string, engineInstance: ContextEngine, server: FakeOpenAIServer) {
  const chatModel = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "bench-model", maxRetries: 0 });
  // The same model, timing what the host spends inside the provider call.
  let providerMs = 0;
  const timedModel = {
    model: chatModel.model,
    complete: chatModel.complete,
    async completeOnce(request: Parameters<typeof chatModel.completeOnce>[0]) {
      const t = performance.now();
      try {
        return await chatModel.completeOnce(request);
      } finally {
        providerMs += performance.now() - t;
      }
    },
  };
  const { engine, counts } = countHookCalls(engineInstance);
  const host = new AgentHost({ engine, chatModel: timedModel });
  const base = conversation(CONVERSATION);
  const session = await host.openSession({ model: "bench-model", contextLength: 1_000_000, history: base });
  const bare: number[] = [];
  const hosted: number[] = [];
  const hostOnly: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const user = `Question ${i}: what changed?`;
    // Bare: the same list the host is about to send, straight to the model.
    // The order alternates so neither side always runs right after the other.
    const messages = [...session.messages, { role: "user", content: user } as Message];
    const bareCall = async () => {
      const t = performance.now();
      await chatModel.completeOnce({ messages, model: "bench-model" });
      return performance.now() - t;
    };
    const hostCall = async () => {
      providerMs = 0;
      const t = performance.now();
      await session.send(user);
      return performance.now() - t;
    };
    let bareMs: number;
    let hostMs: number;
    if (i % 2 === 0) {
      bareMs = await bareCall();
      hostMs = await hostCall();
    } else {
      hostMs = await hostCall();
      bareMs = await bareCall();
    }
    if (i >= WARMUP) {
      bare.push(bareMs);
      hosted.push(hostMs);
      hostOnly.push(hostMs - providerMs);
    }
  }
  await host.close();
  const b = stats(bare);
  const h = stats(hosted);
  const own = stats(hostOnly);
  const abOverhead = ((h.median - b.median) / b.median) * 100;
  const ownOverhead = (own.median / b.median) * 100;
  console.log(`${label} (${session.messages.length} messages at the end)`);
  console.log(`  bare call      median ${b.median.toFixed(2)} ms, mean ${b.mean.toFixed(2)}, p90 ${b.p90.toFixed(2)}`);
  console.log(`  host.send      median ${h.median.toFixed(2)} ms, mean ${h.mean.toFixed(2)}, p90 ${h.p90.toFixed(2)}  (A/B difference ${abOverhead.toFixed(1)}%, noisy)`);
  console.log(
    `  host's own time per request: median ${(own.median * 1000).toFixed(0)} µs, mean ${(own.mean * 1000).toFixed(0)} µs, p90 ${(own.p90 * 1000).toFixed(0)} µs` +
      ` = ${ownOverhead.toFixed(2)}% of the bare call`,
  );
  console.log(`  calls of selectContext: ${counts.selectContext}, of onTurnComplete: ${counts.onTurnComplete}`);
  return { ownOverhead, counts };
}

async function main() {
  const server = await new FakeOpenAIServer().start();
  // A fixed short answer with usage, like a real provider.
  server.script(() => ({ content: "Looked into it; nothing else changed.", usage: { prompt_tokens: 50_000, completion_tokens: 9, total_tokens: 50_009 } }));
  console.log(`host overhead per request: ${CONVERSATION}-message conversation, ${ITERATIONS} requests each (after ${WARMUP} warm-up), local HTTP server`);
  try {
    const plain = await measure("non-implementing engine", new PlainEngine(), server);
    await measure("engine implementing both hooks", new ObservingEngine(), server);
    const ok = plain.ownOverhead < 5 && plain.counts.selectContext === 0 && plain.counts.onTurnComplete === 0;
    console.log(
      `target (< 5% with a non-implementing engine, no calls of inherited no-op hooks): ${ok ? "met" : "NOT met"}`,
    );
  } finally {
    await server.stop();
  }
}

await main();
