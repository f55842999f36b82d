// README "streamText and ToolLoopAgent": the same session with streamText.
import { streamText } from "ai";
import type { LanguageModel, ModelMessage } from "ai";
import { ContextCompressor } from "@context-engine/compressor";
import { createContextSession } from "@context-engine/ai-sdk";

declare const model: LanguageModel;
const messages: ModelMessage[] = [{ role: "user", content: "Summarise the log" }];

// --- README begin
const session = createContextSession(new ContextCompressor({ contextLength: 128_000 }), { model: "gpt-5", contextLength: 128_000 });
const stream = streamText({ model, messages, tools: session.tools(), prepareStep: session.prepareStep, onStepFinish: session.onStepFinish });
for await (const text of stream.textStream) process.stdout.write(text);
const next = await session.finish(stream);
// --- README end
export { next };
