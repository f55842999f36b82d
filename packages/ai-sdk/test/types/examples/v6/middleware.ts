// README "Middleware mode" for ai@6 (`specificationVersion: "v3"`).
import { generateText, wrapLanguageModel } from "ai";
import { LcmEngine } from "@context-engine/lcm";
import { contextEngineMiddleware, engineTools } from "@context-engine/ai-sdk";

declare const model: Parameters<typeof wrapLanguageModel>[0]["model"];

// --- README begin
const engine = new LcmEngine({ dataDir: "./lcm", contextLength: 128_000 });
const wrapped = wrapLanguageModel({ model, middleware: contextEngineMiddleware(engine, { specificationVersion: "v3", sessionId: "chat-1" }) });
const { text } = await generateText({ model: wrapped, prompt: "Where were we?", tools: engineTools(engine, { sessionId: "chat-1" }) });
// --- README end
export { text };
