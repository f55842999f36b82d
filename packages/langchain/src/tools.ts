import { MAX_RESULT_DEPTH, ToolSchemaSchema, describeError, exceedsDepth, toolError } from "@context-engine/core";
import type { ContextEngine } from "@context-engine/core";
import { tool } from "@langchain/core/tools";
import type { BaseMessage } from "@langchain/core/messages";
import { bounded } from "./bounded.js";
import { toOpenAIMessages } from "./convert/to-openai.js";
import type { AdapterEventSink } from "./events.js";
import type { EngineSessions } from "./sessions.js";

export interface EngineToolDeps {
  sessions: EngineSessions;
  sessionIdOf: (configurable: Record<string, unknown> | undefined) => string;
  timeoutMs: number;
  emit: AdapterEventSink;
}

/**
 * The engine's tools as LangChain tools. Each call goes to the engine of the
 * calling thread with the live conversation; a throw, a timeout or a
 * non-string answer becomes a JSON error string for the model, never a throw.
 */
export function engineTools(template: ContextEngine, deps: EngineToolDeps) {
  let schemas: unknown[] = [];
  try {
    const listed: unknown = template.getToolSchemas();
    // Each schema as plain JSON data: a cyclic one, a throwing getter or a Proxy is skipped here, not thrown later.
    schemas = Array.isArray(listed) ? listed.map(plainCopy) : [];
  } catch (error) {
    deps.emit({ type: "hook.failed", sessionId: "", hook: "getToolSchemas", error: describeError(error) });
  }
  const tools = [];
  for (const raw of schemas) {
    const parsed = ToolSchemaSchema.safeParse(raw);
    if (!parsed.success) {
      deps.emit({ type: "hook.failed", sessionId: "", hook: "getToolSchemas", error: `invalid tool schema skipped: ${raw === null ? "not plain JSON data" : JSON.stringify(raw)?.slice(0, 120)}` });
      continue;
    }
    const schema = parsed.data;
    tools.push(
      tool(
        async (input: unknown, runtime) => {
          const config = (runtime as { config?: { configurable?: Record<string, unknown> }; configurable?: Record<string, unknown> }) ?? {};
          const sessionId = deps.sessionIdOf(config.configurable ?? config.config?.configurable);
          const session = deps.sessions.get(sessionId);
          await session.ready;
          const state = (runtime as { state?: { messages?: BaseMessage[] } })?.state;
          const messages = Array.isArray(state?.messages) ? toOpenAIMessages(state.messages) : [];
          const result = await bounded(
            (signal) => session.engine.handleToolCall(schema.name, input, { messages, sessionId, signal }),
            deps.timeoutMs,
            (runtime as { signal?: AbortSignal })?.signal,
          );
          if (!result.ok) return toolError(`${schema.name} failed: ${result.error}`);
          return typeof result.value === "string" ? result.value : toolError(`${schema.name} returned no text`);
        },
        {
          name: schema.name,
          description: schema.description ?? schema.name,
          schema: schema.parameters as Record<string, unknown> as never,
        },
      ),
    );
  }
  return tools;
}

/** A JSON copy of one schema, or null when it is not plain JSON data (cyclic, too deep, throwing). */
function plainCopy(item: unknown): unknown {
  try {
    return exceedsDepth(item, MAX_RESULT_DEPTH) ? null : (JSON.parse(JSON.stringify(item)) as unknown);
  } catch {
    return null;
  }
}
