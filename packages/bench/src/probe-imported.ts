// Ad-hoc probe (not committed): per-turn CPU of an imported session, turn by turn, drain state beside it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHost, createOpenAIChatModel } from "@context-engine/host";
import { LcmEngine } from "@context-engine/lcm";
import { ConversationGenerator } from "./generate.js";
import { LoopbackChatServer } from "./loopback-server.js";
import { cpuMs } from "./stats.js";
import { createInstantSummariser } from "./stub-model.js";
import { SYSTEM_PROMPT } from "./system-prompt.js";

const size = Number(process.env.N ?? 10000);
const waitFirst = process.env.WAIT === "1";
const dir = mkdtempSync(join(tmpdir(), "probe-"));
const server = await new LoopbackChatServer().start();
const engine = new LcmEngine({ contextLength: 128_000, model: "bench-model", chatModel: createInstantSummariser(), config: { database_path: join(dir, "lcm.db") } });
const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "bench-model", maxRetries: 0 });
const host = new AgentHost({ engine, chatModel: model, config: { contextTimeoutSeconds: 600 } });
const history = new ConversationGenerator().until(size);
const session = await host.openSession({ sessionId: "p", model: "bench-model", contextLength: 128_000, dataDir: dir, systemPrompt: SYSTEM_PROMPT, history });
const st = () => (engine.getStatus() as any).lcm;
let c = cpuMs(); let t = performance.now();
await session.send("first");
console.log(`first: ${(performance.now() - t).toFixed(0)} ms CPU ${(cpuMs() - c).toFixed(0)}; frontier ${st().session.frontierTokens}`);
if (waitFirst) { t = performance.now(); c = cpuMs(); await engine.whenIdle("p"); console.log(`drain: ${(performance.now() - t).toFixed(0)} ms CPU ${(cpuMs() - c).toFixed(0)}; frontier ${st().session.frontierTokens}`); }
for (let i = 0; i < 25; i++) {
  c = cpuMs(); t = performance.now();
  await session.send(`Question ${i}: what changed in src/api since the last release?`);
  const s = st();
  console.log(`turn ${i}: ${(performance.now() - t).toFixed(0)} ms CPU ${(cpuMs() - c).toFixed(1)}; frontier ${s.session.frontierTokens} draining ${s.session.draining} runs ${s.drainRuns} published ${s.published} live ${session.messages.length}`);
}
await host.close(); await engine.close(); await server.stop();
