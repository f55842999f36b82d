export { contextEngineMiddleware } from "./middleware.js";
export type { ContextEngineMiddlewareOptions } from "./middleware.js";
export type { AdapterEvent } from "./events.js";
export { MessageCodec } from "./convert/codec.js";
export { toOpenAIMessage, toOpenAIMessages } from "./convert/to-openai.js";
export { fromOpenAIMessage } from "./convert/from-openai.js";
export { usageFromResponse } from "./usage.js";
