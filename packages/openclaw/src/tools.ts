import { toOpenAiMessages } from "./convert-to-openai.js";
import { bounded } from "./guard.js";
import type { Logger } from "@context-engine/core";
import type { SessionEngines } from "./sessions.js";

/** An OpenClaw agent tool (`AnyAgentTool`), the fields this package fills. */
export interface OcAgentTool {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(toolCallId: string, params: unknown, signal?: AbortSignal): Promise<{ content: { type: "text"; text: string }[]; details: unknown }>;
}

/** What OpenClaw passes a tool factory; only the fields read here. */
export interface OcToolContext {
  sessionId?: string;
  sessionKey?: string;
  agentDir?: string;
  workspaceDir?: string;
}

/**
 * The session engine's own tools as OpenClaw agent tools. Calls go to the
 * engine of the tool run's session, bounded; an engine error is a tool result,
 * never a broken loop.
 */
export function engineTools(sessions: SessionEngines, ctx: OcToolContext, timeoutMs: number, logger: Logger): OcAgentTool[] {
  const sessionId = ctx.sessionId ?? ctx.sessionKey ?? "default";
  const entry = sessions.get(sessionId);
  let schemas;
  try {
    schemas = entry.engine.getToolSchemas();
  } catch (err) {
    logger.warn(`[context-engine/openclaw] getToolSchemas threw: ${String(err)}`);
    return [];
  }
  return schemas.map((schema) => ({
    name: schema.name,
    label: schema.name,
    description: schema.description ?? schema.name,
    parameters: schema.parameters,
    async execute(_toolCallId, params, signal) {
      const messages = entry.lastHost ? toOpenAiMessages(entry.lastHost).messages : [];
      const outcome = await bounded(
        schema.name,
        timeoutMs,
        logger,
        (inner) => entry.engine.handleToolCall(schema.name, params, { sessionId, signal: inner, messages }),
        signal,
      );
      const text = outcome.ok && typeof outcome.value === "string" ? outcome.value : JSON.stringify({ error: outcome.ok ? "tool returned no text" : outcome.reason });
      return { content: [{ type: "text", text }], details: undefined };
    },
  }));
}
