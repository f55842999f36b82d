import { z } from "zod";
import { MessageSchema, type Message } from "@context-engine/core";
import { SessionFormatError } from "../errors.js";
import { sourceFor } from "../provenance.js";
import type { RecordedSession } from "../types.js";
import { dropNulls, finishSession } from "./finish.js";

const OpenHandsSampleSchema = z.looseObject({
  instance_id: z.string(),
  run_id: z.string().optional(),
  resolved: z.boolean().optional(),
  messages: z.array(z.looseObject({ role: z.string() })),
  tools: z.array(z.looseObject({})).optional(),
});

export const OpenHandsSchema = z.array(OpenHandsSampleSchema);

/**
 * OpenHands trajectories as the ADP swe-gym sample stores them (a JSON array of
 * `{instance_id, run_id, resolved, messages, tools, test_result}`) → one session
 * per sample. Messages are already OpenAI format; every null key (`function_call`,
 * `name`, `tool_call_id`, `tool_calls`, a call's `index`, null content) is dropped.
 * `tools` are kept as recorded.
 */
export function fromOpenHands(raw: unknown, path: string): RecordedSession[] {
  const parsed = OpenHandsSchema.safeParse(raw);
  if (!parsed.success) throw SessionFormatError.fromZod(path, "OpenHands sample", parsed.error);
  return parsed.data.map((sample, sampleIndex) => {
    const messages = sample.messages.map((m, i) => {
      const clean = dropNulls(m);
      const check = MessageSchema.safeParse(clean);
      if (!check.success) throw SessionFormatError.fromZod(path, `OpenHands message [${sampleIndex}].messages[${i}]`, check.error);
      return clean as Message;
    });
    return finishSession({
      id: sample.instance_id,
      format: "openhands",
      source: sourceFor(path, "openhands"),
      messages,
      ...(sample.tools ? { tools: sample.tools } : {}),
      meta: { instanceId: sample.instance_id, runId: sample.run_id, resolved: sample.resolved },
    });
  });
}
