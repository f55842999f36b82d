import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Message } from "@context-engine/core";

const Turn = z.looseObject({ speaker: z.string(), dia_id: z.string(), text: z.string() });
const Qa = z.looseObject({ question: z.string(), evidence: z.array(z.string()).default([]), category: z.number().int() });
const Sample = z.looseObject({
  sample_id: z.string(),
  conversation: z.looseObject({ speaker_a: z.string(), speaker_b: z.string() }),
  qa: z.array(Qa),
});

export interface LocomoTurn {
  diaId: string;
  speaker: string;
  /** `Speaker: text`, the message content. */
  content: string;
  message: Message;
  /** When the turn was said (epoch ms, UTC): its session's date and time plus one second per earlier turn of the session; null when the session has no readable date. */
  saidAt: number | null;
}

export interface LocomoQuestion {
  question: string;
  evidence: string[];
  category: number;
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** A LoCoMo session date such as "1:56 pm on 8 May, 2023", read as UTC; null when absent or unreadable. */
export function sessionTime(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(value.trim());
  if (!m) return null;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) return null;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/**
 * LoCoMo conversations as the eval feeds them: sessions in number order, each
 * turn one message `Speaker: text` (speaker_a → user, speaker_b → assistant).
 * Questions keep only evidence ids that name a turn of the conversation.
 */
export function readLocomo(path: string): LocomoConversation[] {
  const parsed = z.array(Sample).safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${path}: ${issue.path.join(".") || "(top level)"}: ${issue.message} (expected the LoCoMo array of samples)`);
  }
  return parsed.data.map((sample) => {
    const conv = sample.conversation as Record<string, unknown> & { speaker_a: string; speaker_b: string };
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const turns: LocomoTurn[] = [];
    for (const n of sessions) {
      const list = z.array(Turn).safeParse(conv[`session_${n}`]);
      if (!list.success) throw new Error(`${path}: ${sample.sample_id}.conversation.session_${n}: expected a list of {speaker, dia_id, text}`);
      const start = sessionTime(conv[`session_${n}_date_time`]);
      for (const [i, t] of list.data.entries()) {
        const content = `${t.speaker}: ${t.text}`;
        const role = t.speaker === conv.speaker_b ? "assistant" : "user";
        turns.push({ diaId: t.dia_id, speaker: t.speaker, content, message: { role, content } as Message, saidAt: start === null ? null : start + i * 1000 });
      }
    }
    const known = new Set(turns.map((t) => t.diaId));
    const questions = sample.qa
      .map((q) => ({ question: q.question, category: q.category, evidence: [...new Set(q.evidence.flatMap((e) => e.split(/[;,\s]+/)).filter((e) => known.has(e)))] }))
      .filter((q) => q.evidence.length > 0);
    return { id: sample.sample_id, turns, questions };
  });
}
