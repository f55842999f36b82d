// The README's quick start, as written there (compiled by `tsc -b` under strict; run by readme.test.ts
// against a loopback OpenAI-compatible server through OPENAI_BASE_URL and OPENAI_API_KEY).
import { tool } from "langchain";

const myTool = tool(async (input: { city?: string }) => `sunny in ${input.city}`, {
  name: "get_weather",
  description: "Weather for a city",
  schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
});

// --- README begin
import { createAgent } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { MemorySaver } from "@langchain/langgraph";
import { LcmEngine } from "@context-engine/lcm";
import { contextEngineMiddleware } from "@context-engine/langchain";

const agent = createAgent({
  model: new ChatOpenAI({ model: "gpt-4.1-mini" }),
  tools: [myTool],
  checkpointer: new MemorySaver(), // keeps each thread's conversation between invocations
  middleware: [contextEngineMiddleware({ engine: (ctx) => new LcmEngine({ ...ctx, dataDir: "./lcm" }), contextLength: 128_000 })],
});
const thread = { configurable: { thread_id: "s1" } };
await agent.invoke({ messages: [{ role: "user", content: "I am fixing the login bug." }] }, thread);
const { messages } = await agent.invoke({ messages: [{ role: "user", content: "Where were we?" }] }, thread);
// --- README end

export { messages };
