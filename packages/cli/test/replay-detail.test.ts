import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import { createEstimator, type Message } from "@context-engine/core";
import { readSessions, type RecordedSession } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import { evidenceRecall } from "../src/replay/evidence.js";
import { checkRecoverable, isLossless } from "../src/replay/recoverability.js";
import { runReplay } from "../src/replay/run.js";
import { FIXTURES } from "./helpers/run-bin.js";

const tmp = () => mkdtempSync(join(tmpdir(), "ce-replay-detail-"));

/** A small conversation in LoCoMo's shape (made up here): two speakers, sessions of turns, questions with evidence ids. */
function locomoLike(): string {
  const turns = (s: number, n: number) =>
    Array.from({ length: n }, (_, t) => ({
      speaker: t % 2 === 0 ? "Ana" : "Ben",
      dia_id: `D${s}:${t + 1}`,
      text: `In session ${s}, remark ${t + 1}: ${"a long aside about gardens and trains ".repeat(14)}(fact ${s}-${t + 1})`,
    }));
  const sample = {
    sample_id: "conv-synthetic",
    conversation: { speaker_a: "Ana", speaker_b: "Ben", session_1_date_time: "1 May 2023", session_1: turns(1, 12), session_2_date_time: "2 May 2023", session_2: turns(2, 12) },
    qa: [
      { question: "What did Ana say early on?", answer: "x", evidence: ["D1:3"], category: 4 },
      { question: "What came last?", answer: "y", evidence: ["D2:11", "D2:12"], category: 1 },
      { question: "Unknown ids are skipped", answer: "z", evidence: ["D9:9"], category: 2 },
      { question: "No evidence", adversarial_answer: "n", category: 5 },
    ],
  };
  const file = join(tmp(), "locomo-like.json");
  writeFileSync(file, JSON.stringify([sample]));
  return file;
}

async function compressorReplay(sessions: RecordedSession[], contextLength: number) {
  return runReplay({
    sessions,
    engines: ["compressor"],
    createEngine: async (_name, ctx) => new ContextCompressor({ contextLength: ctx.contextLength, dataDir: ctx.dataDir }),
    contextLength,
    counter: createEstimator(),
    dataDir: tmp(),
    isLossless,
    checkRecoverable,
  });
}

describe("what the replay records of each compaction", () => {
  it("a real compressor run: every committed compaction carries the summary it put in and the span it replaced", async () => {
    const report = await compressorReplay(await readSessions(join(FIXTURES, "debug-session.jsonl")), 3000);
    const run = report.sessions[0]!.runs[0]!;
    const committed = run.compactions.filter((c) => c.outcome === "committed");
    expect(committed.length).toBeGreaterThan(0);
    for (const c of committed) {
      const d = c.detail!;
      expect(d.replacedCount).toBeGreaterThan(0);
      expect(d.replaced.length).toBe(Math.min(40, d.replacedCount));
      expect(d.addedCount).toBeGreaterThan(0);
      expect(d.added.some((m) => m.text.length > 20)).toBe(true); // the summary text
      expect(d.messagesAfter).toBe(d.messagesBefore - d.replacedCount + d.addedCount);
      expect(d.replacedTokens).toBeGreaterThan(0);
    }
    expect(run.evidence).toBeUndefined(); // no questions in this data
  }, 60_000);

  it("LoCoMo-shaped data: evidence recall of the final context, from the data's questions", async () => {
    const sessions = await readSessions(locomoLike());
    const small = await compressorReplay(sessions, 2500);
    const large = await compressorReplay(sessions, 200_000);
    const e = small.sessions[0]!.runs[0]!.evidence!;
    const all = large.sessions[0]!.runs[0]!.evidence!;
    // Three questions have evidence; one names turns that do not exist.
    expect(all).toEqual({ questions: 2, evidenceTurns: 3, inContext: 3, questionsInContext: 2, recoverable: null, questionsRecoverable: null });
    // A small window compacts: an early turn's text has left the context, the latest turns have not (the first
    // request is not used: the compressor keeps it verbatim as the task).
    expect(small.sessions[0]!.runs[0]!.summary.compactions).toBeGreaterThan(0);
    expect(e.questions).toBe(2);
    expect(e.inContext).toBeLessThan(3);
    expect(e.questionsInContext).toBeLessThanOrEqual(1);
    // The report JSON keeps only the first few lost messages, not the full list.
    expect(JSON.stringify(small)).not.toContain('"lost"');
  }, 60_000);

  it("evidenceRecall: recoverable counts what the lossless check brought back", () => {
    const m = (role: "user" | "assistant", id: string, text: string): Message => ({ role, content: text, metadata: { dia_id: id } }) as Message;
    const messages = [m("user", "D1:1", "alpha fact"), m("assistant", "D1:2", "beta fact"), m("user", "D1:3", "gamma fact")];
    // q3 names a turn that was never replayed (past --max-turns): it is left out, and so is its other evidence turn.
    const notReplayed = m("assistant", "D1:4", "delta fact");
    const qa = [
      { question: "q1", evidence: ["D1:1"] },
      { question: "q2", evidence: ["D1:2", "D1:3", "D7:7"] },
      { question: "q3", evidence: ["D1:4", "D1:1"] },
    ];
    const session = { id: "s", format: "locomo", source: { path: "x" }, messages: [...messages, notReplayed], meta: { qa } } as unknown as RecordedSession;
    const lastRequest: Message[] = [{ role: "user", content: "Summary: …gamma fact…" }];
    // Message 1 (beta) could not be brought back by the engine's tools.
    const r = evidenceRecall(session, messages, lastRequest, new Set([1]));
    expect(r).toEqual({ questions: 2, evidenceTurns: 3, inContext: 1, questionsInContext: 0, recoverable: 2, questionsRecoverable: 1 });
    expect(evidenceRecall({ ...session, meta: {} }, messages, lastRequest, null)).toBeNull();
  });
});
