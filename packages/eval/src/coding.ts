import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { ContextEngine, Message } from "@context-engine/core";
import { contentText, defaultTokenCounter } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import type { RecordedSession } from "@context-engine/sessions";
import { resetVirtualClock, restoreRealClock } from "./clock.js";
import { messageText, replay, type RequestRecord } from "./driver.js";
import { extractFacts, FACT_KINDS, type Fact, type FactKind } from "./facts.js";
import { grep, storedSeqs, summarySpan } from "./lcm-tools.js";
import { newestWithin } from "./metrics.js";
import { scriptedSummaryModel } from "./scripted-model.js";
import { comparable, contentWords } from "./text.js";

export const CODING_WINDOW = 16_384;

/** `compressor`: no summary model (the deterministic summary); `compressor_scripted`: the scripted model of scripted-model.ts. */
export const CODING_ENGINES = ["compressor", "compressor_scripted", "lcm"] as const;
export type CodingEngine = (typeof CODING_ENGINES)[number];

export type Counts = Record<FactKind, { facts: number; present: number }>;

export interface EngineCodingFigures {
  compactions: number;
  /** Facts of compacted regions present in the next request. */
  nextRequest: Counts;
  /** The same facts in the newest original messages of the same token size (plain truncation). */
  truncation: Counts;
  /** lcm only: facts found again by one `lcm_grep` (hit inside the region, or a summary covering it). */
  grep?: Counts;
  /** Requests after the first compaction, and how many hold the task statement verbatim / verbatim or one grep away. */
  task: { requests: number; verbatim: number; verbatimOrRetrievable: number };
}

export interface SessionCodingRun {
  id: string;
  messages: number;
  engines: Record<CodingEngine, EngineCodingFigures>;
}

const emptyCounts = (): Counts => Object.fromEntries(FACT_KINDS.map((k) => [k, { facts: 0, present: 0 }])) as Counts;

function tally(counts: Counts, facts: readonly Fact[], has: (f: Fact) => boolean): void {
  for (const f of facts) {
    counts[f.kind].facts++;
    if (has(f)) counts[f.kind].present++;
  }
}

/** The first user message: the task statement. */
export function taskStatement(messages: readonly Message[]): { index: number; text: string } | null {
  const index = messages.findIndex((m) => m.role === "user");
  return index < 0 ? null : { index, text: contentText(messages[index]!.content) };
}

async function runCoding(engine: ContextEngine, session: RecordedSession, lcm: boolean): Promise<EngineCodingFigures> {
  const sessionId = `coding-${session.id}`;
  const records: RequestRecord[] = [];
  await replay({ engine, sessionId, messages: session.messages, onRequest: (r) => records.push(r) });
  const figures: EngineCodingFigures = {
    compactions: 0,
    nextRequest: emptyCounts(),
    truncation: emptyCounts(),
    ...(lcm ? { grep: emptyCounts() } : {}),
    task: { requests: 0, verbatim: 0, verbatimOrRetrievable: 0 },
  };
  const task = taskStatement(session.messages);
  const taskText = task ? comparable(task.text) : "";
  const indexOf = new Map(session.messages.map((m, i) => [m, i]));
  const seqs = storedSeqs(session.messages);
  let taskRetrievable: boolean | null = null;
  let compactedSeen = false;
  for (const r of records) {
    const requestText = r.messages.map(messageText).join("\n");
    if (r.compacted && r.compacted.length > 0) {
      compactedSeen = true;
      figures.compactions++;
      const facts = extractFacts(r.compacted);
      tally(figures.nextRequest, facts, (f) => requestText.includes(f.text));
      const truncated = newestWithin(session.messages.slice(0, r.at), (m) => defaultTokenCounter.countMessage(m), r.tokens);
      const truncText = truncated.map(messageText).join("\n");
      tally(figures.truncation, facts, (f) => truncText.includes(f.text));
      if (figures.grep) {
        const region = new Set(r.compacted.map((m) => seqs[indexOf.get(m)!]).filter((q): q is number => q !== undefined));
        const found = new Map<string, boolean>();
        for (const f of facts) if (!found.has(f.text)) found.set(f.text, await foundAgain(engine, sessionId, f.text, region));
        tally(figures.grep, facts, (f) => found.get(f.text) === true);
      }
    }
    if (compactedSeen && task) {
      figures.task.requests++;
      const verbatim = comparable(requestText).includes(taskText);
      if (verbatim) figures.task.verbatim++;
      if (!verbatim && lcm && taskRetrievable === null) taskRetrievable = await retrievable(engine, sessionId, task.text, seqs[task.index] ?? -1);
      if (verbatim || (lcm && taskRetrievable)) figures.task.verbatimOrRetrievable++;
    }
  }
  return figures;
}

async function foundAgain(engine: ContextEngine, sessionId: string, text: string, region: ReadonlySet<number>): Promise<boolean> {
  const hits = await grep(engine, sessionId, text.slice(0, 400), 10);
  for (const h of hits) {
    if (h.type === "message" && h.seq !== undefined && region.has(h.seq)) return true;
    if (h.type === "summary") {
      const span = await summarySpan(engine, sessionId, h.ref);
      if (span) for (const s of region) if (s >= span[0] && s <= span[1]) return true;
    }
  }
  return false;
}

/** One `lcm_grep` with the task's first eight content words finds the task message itself. */
async function retrievable(engine: ContextEngine, sessionId: string, text: string, seq: number): Promise<boolean> {
  const words = contentWords(text).slice(0, 8);
  if (!words.length) return false;
  const hits = await grep(engine, sessionId, words.join(" "), 10);
  return hits.some((h) => h.type === "message" && h.seq === seq);
}

export async function evalCodingSession(session: RecordedSession, window = CODING_WINDOW): Promise<SessionCodingRun> {
  resetVirtualClock();
  const dir = mkdtempSync(join(tmpdir(), "ce-eval-coding-"));
  const lcm = new LcmEngine({ contextLength: window, dataDir: dir, config: { prepare_in_background: false } });
  try {
    const compressor = await runCoding(new ContextCompressor({ contextLength: window }), session, false);
    const scripted = await runCoding(new ContextCompressor({ contextLength: window, chatModel: scriptedSummaryModel() }), session, false);
    const lcmFigures = await runCoding(lcm, session, true);
    return { id: session.id, messages: session.messages.length, engines: { compressor, compressor_scripted: scripted, lcm: lcmFigures } };
  } finally {
    restoreRealClock();
    lcm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
