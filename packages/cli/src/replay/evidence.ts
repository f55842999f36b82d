import { contentText, type Message } from "@context-engine/core";
import type { RecordedSession } from "@context-engine/sessions";
import { z } from "zod";

/**
 * A retrieval figure for sessions whose data carries questions with evidence
 * (LoCoMo: `qa[].evidence` lists the `dia_id`s of the turns that answer each
 * question). It says whether what the model would see at the end of the run
 * still holds those turns; it does not ask a model anything.
 */
export interface EvidenceRecall {
  /** Questions whose evidence turns were all replayed (ids the data does not have are ignored). */
  questions: number;
  /** Distinct evidence turns of those questions. */
  evidenceTurns: number;
  /** Evidence turns whose text is verbatim in the final context (the conversation at the end, and the last request sent). */
  inContext: number;
  /** Questions all of whose evidence is in that request. */
  questionsInContext: number;
  /** In context, or brought back verbatim by the engine's tools (lcm_expand / lcm_grep); null when the engine is not lossless. */
  recoverable: number | null;
  questionsRecoverable: number | null;
}

const QaSchema = z.array(z.looseObject({ question: z.string(), evidence: z.array(z.string()).optional() }));

/** Questions of the session with their evidence `dia_id`s; empty when the data has none. */
export function sessionQuestions(session: RecordedSession): Array<{ question: string; evidence: string[] }> {
  const parsed = QaSchema.safeParse(session.meta?.qa);
  if (!parsed.success) return [];
  return parsed.data.filter((q) => (q.evidence?.length ?? 0) > 0).map((q) => ({ question: q.question, evidence: q.evidence! }));
}

function diaId(m: Message): string | null {
  const id = (m as { metadata?: { dia_id?: unknown } }).metadata?.dia_id;
  return typeof id === "string" ? id : null;
}

/**
 * @param original every message the run put into the conversation, in order
 * @param context what the model would see next: the conversation at the end of the run and the last request sent (after the engine's selection)
 * @param lost indices into `original` that the lossless check could not bring back; null when not checked
 */
export function evidenceRecall(
  session: RecordedSession,
  original: readonly Message[],
  context: readonly Message[],
  lost: ReadonlySet<number> | null,
): EvidenceRecall | null {
  const questions = sessionQuestions(session);
  if (questions.length === 0) return null;
  const textById = new Map<string, { role: string; text: string }>();
  for (const m of session.messages) {
    const id = diaId(m);
    if (id) textById.set(id, { role: m.role, text: contentText(m.content).trim() });
  }
  // Where each replayed evidence turn sits in the run's conversation (by role and text).
  const positions = new Map<string, number[]>();
  original.forEach((m, index) => {
    const key = `${m.role}\u0000${contentText(m.content).trim()}`;
    positions.set(key, [...(positions.get(key) ?? []), index]);
  });
  const visible = context.map((m) => contentText(m.content));
  const state = new Map<string, { inContext: boolean; recoverable: boolean }>();
  const judge = (id: string) => {
    const known = state.get(id);
    if (known) return known;
    const turn = textById.get(id);
    if (!turn || !turn.text) return "unknown" as const; // an id the data does not have: ignored
    const at = positions.get(`${turn.role}\u0000${turn.text}`);
    if (!at?.length) return "not_replayed" as const; // e.g. past --max-turns
    const inContext = visible.some((v) => v.includes(turn.text));
    const result = { inContext, recoverable: inContext || (lost !== null && at.some((i) => !lost.has(i))) };
    state.set(id, result);
    return result;
  };
  let counted = 0;
  let questionsInContext = 0;
  let questionsRecoverable = 0;
  const used = new Set<{ inContext: boolean; recoverable: boolean }>();
  for (const q of questions) {
    const verdicts = q.evidence.map(judge);
    // A question counts only when every evidence turn it names was replayed.
    if (verdicts.includes("not_replayed")) continue;
    const judged = verdicts.filter((j): j is { inContext: boolean; recoverable: boolean } => typeof j === "object");
    if (judged.length === 0) continue;
    counted++;
    for (const j of judged) used.add(j);
    if (judged.every((j) => j.inContext)) questionsInContext++;
    if (judged.every((j) => j.recoverable)) questionsRecoverable++;
  }
  if (counted === 0) return null;
  const turns = [...used];
  return {
    questions: counted,
    evidenceTurns: turns.length,
    inContext: turns.filter((t) => t.inContext).length,
    questionsInContext,
    recoverable: lost === null ? null : turns.filter((t) => t.recoverable).length,
    questionsRecoverable: lost === null ? null : questionsRecoverable,
  };
}
