// README: "`ToolLoopAgent` takes the same `prepareStep`/`onStepFinish`".
import { ToolLoopAgent } from "ai";
import type { LanguageModel } from "ai";
import { ContextCompressor } from "@context-engine/compressor";
import { createContextSession } from "@context-engine/ai-sdk";

declare const model: LanguageModel;

const session = createContextSession(new ContextCompressor({ contextLength: 128_000 }), { model: "gpt-5", contextLength: 128_000 });
const agent = new ToolLoopAgent({ model, tools: session.tools(), prepareStep: session.prepareStep, onStepFinish: session.onStepFinish });
const result = await agent.generate({ prompt: "Fix the failing test" });
const next = await session.finish(result);
export { next };
