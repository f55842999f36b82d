// Compile-time check (run by `tsc -b`): what this package builds is assignable
// to OpenClaw's own published types, and OpenClaw's messages are accepted by
// the converters. Not a runtime test file.
import type { AgentMessage, HarnessContextEngine } from "openclaw/plugin-sdk/agent-harness-runtime";
import type { OpenClawPluginApi, OpenClawPluginDefinition } from "openclaw/plugin-sdk/plugin-entry";
import { createOpenClawContextEngine, defineContextEnginePlugin, fromOpenAiMessages, toOpenAiMessages } from "../src/index.js";
import type { OcPluginApi } from "../src/index.js";
import { NoopEngine } from "./engines.js";

export const engine: HarnessContextEngine = createOpenClawContextEngine({ id: "noop", factory: () => new NoopEngine() });

const plugin = defineContextEnginePlugin({ id: "noop", name: "No-op", description: "d", engine: () => ({ factory: () => new NoopEngine() }) });
export const definition: OpenClawPluginDefinition = plugin;
// OpenClaw's plugin api satisfies the subset the plugin uses.
export const api = (real: OpenClawPluginApi): OcPluginApi => real;

export function convert(messages: AgentMessage[]): AgentMessage[] {
  const { messages: openai, origins } = toOpenAiMessages(messages);
  return fromOpenAiMessages(openai, origins, { api: "x", provider: "y", model: "z" }).messages as AgentMessage[];
}
