// README "Quick start" (prepareStep mode), as written there. Compiled under `strict` against ai@7 and ai@6.
import { generateText, stepCountIs, tool } from "ai";
import type { LanguageModel, ModelMessage } from "ai";
import { z } from "zod";
import { ContextCompressor } from "@context-engine/compressor";
import { createContextSession } from "@context-engine/ai-sdk";

declare const model: LanguageModel;
const myTools = { runTests: tool({ description: "Run the tests", inputSchema: z.object({}), execute: async () => "2 passed" }) };

// --- README begin
const session = createContextSession(new ContextCompressor({ contextLength: 128_000 }), { model: "gpt-5", contextLength: 128_000 });
let messages: ModelMessage[] = [{ role: "user", content: "Fix the failing test" }];
const result = await generateText({ model, instructions: "You are a coding agent.", messages, tools: { ...myTools, ...session.tools() },
  stopWhen: stepCountIs(20), prepareStep: session.prepareStep, onStepFinish: session.onStepFinish });
messages = [...(await session.finish(result)), { role: "user", content: "Now add a test" }]; // the next turn starts from the engine's view
// --- README end
export { messages };
