import { z } from "zod";
import type { Message } from "@context-engine/core";
import { SessionFormatError } from "../errors.js";
import { sourceFor } from "../provenance.js";
import type { RecordedSession } from "../types.js";
import { finishSession } from "./finish.js";

const LocomoTurnSchema = z.looseObject({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  img_url: z.array(z.string()).optional(),
  blip_caption: z.string().optional(),
  query: z.string().optional(),
});

const LocomoSampleSchema = z.looseObject({
  sample_id: z.string(),
  conversation: z.looseObject({ speaker_a: z.string(), speaker_b: z.string() }),
  qa: z.array(z.looseObject({ question: z.string() })).optional(),
});

export const LocomoSchema = z.array(LocomoSampleSchema);

/** Per-message extra field on LoCoMo messages (not sent by OpenAI-compatible hosts that strip unknown keys). */
export interface LocomoMessageMetadata {
  dia_id: string;
  session: number;
  date_time?: string;
  speaker: string;
  img_url?: string[];
  blip_caption?: string;
}

// OpenAI's `name` field allows letters, digits, _ and - only.
const safeName = (speaker: string) => speaker.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "speaker";

/**
 * LoCoMo (`locomo10.json`-style array) → one session per sample, id `sample_id`.
 *
 * Sessions `session_1 … session_N` are concatenated in number order. Turns of
 * `speaker_a` become `user` messages and turns of `speaker_b` become `assistant`
 * messages, each with `name` = the speaker and an extra
 * `metadata: { dia_id, session, date_time, speaker, img_url?, blip_caption? }`.
 * A shared photo's BLIP caption is appended to the text as `[shares <caption>]`
 * (the images themselves are not released). The QA list, speakers and session
 * dates go to `meta`. Licence: CC BY-NC 4.0 — never commit converted copies.
 */
export function fromLocomo(raw: unknown, path: string): RecordedSession[] {
  const parsed = LocomoSchema.safeParse(raw);
  if (!parsed.success) throw SessionFormatError.fromZod(path, "LoCoMo", parsed.error);
  return parsed.data.map((sample, sampleIndex) => {
    const conv = sample.conversation as Record<string, unknown> & { speaker_a: string; speaker_b: string };
    const sessionNumbers = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const messages: Message[] = [];
    const times: Array<number | null> = [];
    const sessionDates: Record<string, string> = {};
    for (const n of sessionNumbers) {
      const turns = z.array(LocomoTurnSchema).safeParse(conv[`session_${n}`]);
      if (!turns.success) {
        throw SessionFormatError.fromZod(path, `LoCoMo sample [${sampleIndex}] conversation.session_${n}`, turns.error);
      }
      const dateTime = typeof conv[`session_${n}_date_time`] === "string" ? (conv[`session_${n}_date_time`] as string) : undefined;
      if (dateTime) sessionDates[`session_${n}`] = dateTime;
      for (const turn of turns.data) {
        const metadata: LocomoMessageMetadata = { dia_id: turn.dia_id, session: n, speaker: turn.speaker };
        if (dateTime) metadata.date_time = dateTime;
        if (turn.img_url) metadata.img_url = turn.img_url;
        if (turn.blip_caption) metadata.blip_caption = turn.blip_caption;
        const content = turn.blip_caption ? `${turn.text}\n[shares ${turn.blip_caption}]` : turn.text;
        const role = turn.speaker === conv.speaker_b ? "assistant" : "user";
        messages.push({ role, content, name: safeName(turn.speaker), metadata } as Message);
        times.push(dateTime ? parseLocomoTime(dateTime) : null);
      }
    }
    return finishSession({
      id: sample.sample_id,
      format: "locomo",
      source: sourceFor(path, "locomo"),
      messages,
      ...(times.some((t) => t !== null) ? { times } : {}),
      meta: {
        sampleId: sample.sample_id,
        speakers: { user: conv.speaker_a, assistant: conv.speaker_b },
        sessionDates,
        qa: sample.qa ?? [],
      },
    });
  });
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** `1:56 pm on 8 May, 2023` → epoch ms (the data names no zone: read as UTC); null when it does not read. */
export function parseLocomoTime(text: string): number | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  const month = MONTHS.findIndex((name) => name.startsWith(m[5]!.toLowerCase().slice(0, 3)));
  if (month < 0) return null;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}
