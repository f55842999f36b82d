import { z } from "zod";
import { MessageContentSchema, ToolCallSchema, type Message } from "@context-engine/core";
import { SessionFormatError } from "../errors.js";
import { sourceFor } from "../provenance.js";
import { inferToolSchemas } from "../tool-schemas.js";
import type { RecordedSession } from "../types.js";
import { finishSession } from "./finish.js";

const SweAgentHistoryItemSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: MessageContentSchema,
  message_type: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  tool_call_ids: z.array(z.string()).nullable().optional(),
});

export const SweAgentSchema = z.looseObject({
  history: z.array(SweAgentHistoryItemSchema),
  trajectory: z.array(z.unknown()).optional(),
  info: z.looseObject({}).optional(),
  environment: z.unknown().optional(),
});

/**
 * SWE-agent `.traj` → one session, from `history[]`.
 *
 * Roles and content are kept; `tool_calls` are kept; a tool message's
 * `tool_call_ids` list becomes `tool_call_id` (a message naming several ids is
 * split into one result per id, the text on the first). SWE-agent's own keys
 * (`agent`, `message_type`, `thought`, `action`) are dropped: `thought` repeats
 * the content. Tool schemas are inferred from the calls.
 */
export function fromSweAgent(raw: unknown, path: string): RecordedSession[] {
  const parsed = SweAgentSchema.safeParse(raw);
  if (!parsed.success) throw SessionFormatError.fromZod(path, "SWE-agent trajectory", parsed.error);
  const traj = parsed.data;
  const messages: Message[] = [];
  for (const item of traj.history) {
    if (item.role === "tool") {
      const ids = item.tool_call_ids ?? [];
      if (ids.length === 0) {
        messages.push({ role: "tool", tool_call_id: "", content: item.content });
        continue;
      }
      ids.forEach((id, i) => {
        messages.push({
          role: "tool",
          tool_call_id: id,
          content: i === 0 ? item.content : `(result shared with tool call ${ids[0]})`,
        });
      });
    } else if (item.role === "assistant") {
      const calls = item.tool_calls ?? [];
      messages.push(calls.length > 0 ? { role: "assistant", content: item.content, tool_calls: calls } : { role: "assistant", content: item.content });
    } else {
      messages.push({ role: item.role, content: item.content } as Message);
    }
  }
  const info = (traj.info ?? {}) as Record<string, unknown>;
  const id = path.replace(/^.*[\\/]/, "").replace(/\.traj$|\.json$/, "");
  const tools = inferToolSchemas(messages);
  return [
    finishSession({
      id,
      format: "swe-agent",
      source: sourceFor(path, "swe-agent"),
      messages,
      ...(tools.length ? { tools } : {}),
      meta: { exitStatus: info.exit_status, modelStats: info.model_stats, environment: traj.environment },
    }),
  ];
}
