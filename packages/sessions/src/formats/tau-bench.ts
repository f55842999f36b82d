import { z } from "zod";
import { MessageSchema, type Message } from "@context-engine/core";
import { SessionFormatError } from "../errors.js";
import { sourceFor } from "../provenance.js";
import { inferToolSchemas } from "../tool-schemas.js";
import type { RecordedSession } from "../types.js";
import { finishSession } from "./finish.js";

const TauBenchRunSchema = z.looseObject({
  task_id: z.union([z.number(), z.string()]),
  trial: z.number().optional(),
  reward: z.number().optional(),
  info: z.looseObject({ task: z.looseObject({}).optional() }).optional(),
  traj: z.array(z.looseObject({ role: z.string() })),
});

export const TauBenchSchema = z.array(TauBenchRunSchema);

/**
 * τ-bench historical trajectories (a JSON array of `{task_id, trial, reward, info, traj}`)
 * → one session per run, id `task-<task_id>-trial-<trial>`. `traj` is already
 * OpenAI format and is kept as is; tool-call ids that τ-bench reuses within a
 * run are renamed (see `repairs`). Tool schemas are inferred from the calls.
 */
export function fromTauBench(raw: unknown, path: string): RecordedSession[] {
  const parsed = TauBenchSchema.safeParse(raw);
  if (!parsed.success) throw SessionFormatError.fromZod(path, "tau-bench trajectories", parsed.error);
  return parsed.data.map((run, runIndex) => {
    const messages = run.traj.map((m, i) => {
      const check = MessageSchema.safeParse(m);
      if (!check.success) throw SessionFormatError.fromZod(path, `tau-bench message [${runIndex}].traj[${i}]`, check.error);
      return m as Message;
    });
    const tools = inferToolSchemas(messages);
    return finishSession({
      id: `task-${run.task_id}-trial-${run.trial ?? runIndex}`,
      format: "tau-bench",
      source: sourceFor(path, "tau-bench"),
      messages,
      ...(tools.length ? { tools } : {}),
      meta: { taskId: run.task_id, trial: run.trial, reward: run.reward, task: run.info?.task },
    });
  });
}
