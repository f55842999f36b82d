// A script that only waits for the scheduled drain: run by drain-process.test.ts in a process of its own, where
// nothing else (no server, no test runner) keeps the event loop alive while the drain pauses between its runs.
import { LcmEngine } from "../src/index.js";
import { agentConversation, FakeSummarizer, tempDir } from "./engine-helpers.js";

const t = tempDir();
const engine = new LcmEngine({ dataDir: t.dir, contextLength: 8_000, chatModel: new FakeSummarizer(), config: { max_passes: 2, backlog_passes: 2 } });
await engine.onSessionStart("w");
const live = await engine.compress(agentConversation(120, 61), { sessionId: "w" });
await engine.onTurnComplete([...live, { role: "user", content: "next" }, { role: "assistant", content: "ok" }], null, { sessionId: "w" });
await engine.whenIdle("w");
const conv = (await engine.store.findConversation("w"))!;
const frontier = (await engine.store.getConversation(conv.id))!.frontierTokens;
process.stdout.write(`${JSON.stringify({ frontier, threshold: engine.thresholdTokens })}\n`);
await engine.close();
t.cleanup();
