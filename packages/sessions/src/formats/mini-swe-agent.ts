import { z } from "zod";
import { contentText, MessageContentSchema, type Message, type Usage } from "@context-engine/core";
import { SessionFormatError } from "../errors.js";
import { sourceFor } from "../provenance.js";
import { BASH_TOOL } from "../tool-schemas.js";
import type { RecordedSession } from "../types.js";
import { usageFromProvider } from "../usage.js";
import { finishSession } from "./finish.js";

const MiniSweMessageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant"]),
  content: MessageContentSchema,
  extra: z.looseObject({}).optional(),
});

export const MiniSweAgentSchema = z.looseObject({
  trajectory_format: z.string().startsWith("mini-swe-agent"),
  instance_id: z.string().optional(),
  info: z.looseObject({}).optional(),
  messages: z.array(MiniSweMessageSchema),
});

// mini-swe-agent's own action parser: exactly one ```bash block makes an action;
// anything else was answered with a format-error user message, not executed.
const ACTION_RE = /```bash\s*\n([\s\S]*?)\n```/g;

/** The bash command of an assistant message, when it holds exactly one action. */
export function parseMiniSweAction(text: string): { command: string; start: number; end: number } | null {
  const matches = [...text.matchAll(ACTION_RE)];
  if (matches.length !== 1) return null;
  const m = matches[0]!;
  return { command: (m[1] ?? "").trim(), start: m.index ?? 0, end: (m.index ?? 0) + m[0].length };
}

/**
 * mini-swe-agent trajectory (`trajectory_format: "mini-swe-agent-1"`) → one session.
 *
 * An assistant message with exactly one ```bash block becomes an assistant
 * message with `tool_calls: [{ function: { name: "bash", arguments: {"command"} } }]`
 * (the block is cut out of the text; the THOUGHT stays as content), and the user
 * message that follows it (`<returncode>…`, a timeout notice or the final
 * submission) becomes the `tool` result. Assistant messages with zero or several
 * blocks stay plain text and the format-error reply stays a user message.
 */
export function fromMiniSweAgent(raw: unknown, path: string): RecordedSession[] {
  const parsed = MiniSweAgentSchema.safeParse(raw);
  if (!parsed.success) throw SessionFormatError.fromZod(path, "mini-swe-agent trajectory", parsed.error);
  const traj = parsed.data;
  const id = traj.instance_id ?? path.replace(/^.*[\\/]/, "").replace(/\.traj\.json$|\.json$/, "");
  const messages: Message[] = [];
  /** Index in `messages` → when it was said, where the recording dates it. */
  const timeOf = new Map<number, number>();
  const usage: Array<Usage | null> = [];
  let pendingCallId: string | null = null;

  traj.messages.forEach((m, index) => {
    if (m.role === "assistant") {
      const text = contentText(m.content);
      const action = typeof m.content === "string" ? parseMiniSweAction(text) : null;
      const response = m.extra?.response as { usage?: unknown; created?: unknown } | undefined;
      usage.push(usageFromProvider(response?.usage));
      // The provider's `created` (epoch seconds) dates the answer.
      if (typeof response?.created === "number" && response.created > 0) timeOf.set(messages.length, response.created * 1000);
      if (action) {
        const callId = `call_${index}`;
        const thought = (text.slice(0, action.start) + text.slice(action.end)).trim();
        messages.push({
          role: "assistant",
          content: thought,
          tool_calls: [
            { id: callId, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: action.command }) } },
          ],
        });
        pendingCallId = callId;
      } else {
        messages.push({ role: "assistant", content: m.content });
        pendingCallId = null;
      }
      return;
    }
    if (m.role === "user" && pendingCallId) {
      messages.push({ role: "tool", tool_call_id: pendingCallId, content: m.content });
    } else {
      messages.push({ role: m.role, content: m.content } as Message);
    }
    pendingCallId = null;
  });

  const info = (traj.info ?? {}) as Record<string, unknown>;
  const config = info.config as { model?: { model_name?: unknown } } | undefined;
  return [
    finishSession({
      id,
      format: "mini-swe-agent",
      source: sourceFor(path, "mini-swe-agent"),
      messages,
      tools: [BASH_TOOL],
      usage,
      ...(timeOf.size > 0 ? { times: messages.map((_, i) => timeOf.get(i) ?? null) } : {}),
      meta: {
        instanceId: traj.instance_id,
        exitStatus: info.exit_status,
        model: config?.model?.model_name,
        modelStats: info.model_stats,
        miniVersion: info.mini_version,
      },
    }),
  ];
}
