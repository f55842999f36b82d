import type { ContextEngine } from "@context-engine/core";
import { z } from "zod";

/** The fields of an `lcm_grep` answer the eval reads (validated: the tool's output is an external input here). */
const GrepAnswer = z.looseObject({
  hits: z.array(z.looseObject({ ref: z.string(), type: z.string(), seq: z.number().optional() })),
});
const DescribeAnswer = z.looseObject({ seq_span: z.looseObject({ first: z.number(), last: z.number() }) });

export interface GrepHit {
  ref: string;
  type: "message" | "summary";
  seq?: number;
}

/** `lcm_grep` through the engine's public tool entry point; a tool error is an empty result. */
export async function grep(engine: ContextEngine, sessionId: string, query: string, limit = 10): Promise<GrepHit[]> {
  const raw = await engine.handleToolCall("lcm_grep", { query, limit }, { sessionId });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return [];
  }
  const parsed = GrepAnswer.safeParse(value);
  if (!parsed.success) return [];
  return parsed.data.hits.map((h) => ({ ref: h.ref, type: h.type === "summary" ? "summary" : "message", ...(h.seq !== undefined ? { seq: h.seq } : {}) }));
}

/** The sequence span `[first, last]` a summary covers, via `lcm_describe`; null when not available. */
export async function summarySpan(engine: ContextEngine, sessionId: string, ref: string): Promise<[number, number] | null> {
  const raw = await engine.handleToolCall("lcm_describe", { id: ref }, { sessionId });
  try {
    const parsed = DescribeAnswer.safeParse(JSON.parse(raw));
    return parsed.success ? [parsed.data.seq_span.first, parsed.data.seq_span.last] : null;
  } catch {
    return null;
  }
}

/**
 * The store's sequence number of each message of a replayed stream: LCM
 * stores every message but the system prompt, numbered from 0 in order.
 */
export function storedSeqs(messages: ReadonlyArray<{ role: string }>): Array<number | undefined> {
  let seq = 0;
  return messages.map((m) => (m.role === "system" ? undefined : seq++));
}
