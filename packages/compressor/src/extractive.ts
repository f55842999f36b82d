import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { EXTRACTIVE_TAG, isSummaryMessage, unwrapMergedContent } from "./markers.js";
import { ANCHOR_HEADING, HEADINGS, NO_USER_SENTINEL, quoteBlock } from "./prompt.js";
import { describeCall, shorten } from "./prune.js";
import type { CallInfo } from "./prune.js";
import { redactSecrets } from "./redact.js";
import { collectDroppedFacts, FACTS_HEADING, redactedArguments, redactedText, renderDroppedFacts, statedInText } from "./dropped-facts.js";
import { chooseIdentifiers, formatIdentifiers, harvestMessage, harvestStart, newHarvest, sampleOf } from "./identifiers.js";

/**
 * The deterministic summary: what a compaction writes without a language
 * model (the offline default) or when the summariser failed. It extracts
 * rather than abstracts: the open request verbatim, the goal, the actions
 * taken with their outcomes, errors, and every identifier, path, URL and
 * number that recurs, within the same token budget as a model summary.
 */

export interface ExtractiveInput {
  /** The messages being summarised. */
  turns: readonly Message[];
  previousSummary: string | null;
  /** Newest user request among everything summarised so far (verbatim), or null. */
  latestRequest: string | null;
  /** The conversation's first user message (often the overall goal), when known. */
  firstRequest?: string | null;
  /** Text the result keeps verbatim beside the summary (kept messages, restated task): not repeated here. */
  keptText?: string | undefined;
  /** Why there is no model summary, shown in the header. */
  reason: string;
  focusTopic?: string | undefined;
  targetTokens: number;
  calls: Map<string, CallInfo>;
}

const ERROR_LINE_RE = /(?:error|exception)\b|\b(?:traceback|failed|failure|fatal|panic|denied|not found|cannot|timed? ?out)\b/i;
const HARVEST_BUDGET_CHARS = 250_000;
const HARVEST_USERS = 200;
const DETAIL_MESSAGES = 1_500;
const ERRORS_PER_RESULT = 3;
const ERRORS_KEPT = 12;
const CONSTRAINT_RE = /\b(must|never|don'?t|do not|always|should(?:n'?t)?|prefer|make sure|only|without)\b/i;

/** Sections of a previous summary, by heading. */
export function splitSections(summary: string): Map<string, string> {
  const sections = new Map<string, string>();
  const re = /^## .+$/gm;
  const heads = [...summary.matchAll(re)];
  heads.forEach((m, i) => {
    const start = m.index! + m[0].length;
    const end = i + 1 < heads.length ? heads[i + 1]!.index! : summary.length;
    sections.set(m[0].trim(), summary.slice(start, end).trim());
  });
  return sections;
}

export function buildExtractiveSummary(input: ExtractiveInput): string {
  const budgetChars = Math.max(1_200, input.targetTokens * 4);
  const previous = input.previousSummary ? splitSections(input.previousSummary) : new Map<string, string>();
  const turns: Message[] = [];
  for (const raw of input.turns) {
    const m = isSummaryMessage(raw) ? unwrapMergedContent(raw) : raw;
    if (m) turns.push(m);
  }

  // What the context keeps verbatim anyway is pointed to, not repeated: the room goes to what would be lost.
  const keptText = input.keptText ?? "";
  const kept = (text: string) => keptText.length > 0 && text.trim().length > 0 && keptText.includes(text.trim());
  const harvest = newHarvest();
  const actions: string[] = [];
  const errors: string[] = [];
  const constraints: string[] = [];
  const userTexts: string[] = [];
  const focusHits: string[] = [];
  const focusTerms = (input.focusTopic ?? "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}_./-]+/u)
    .filter((t) => t.length >= 3);
  let lastAssistantText = "";
  let firstUser: string | null = null;

  // Work is bounded so a 20k-message middle stays fast: actions and errors are
  // listed for the newest DETAIL_MESSAGES (older ones only counted: the list
  // keeps its newest entries anyway), identifiers are harvested from the newest
  // text up to a budget plus the newest HARVEST_USERS user messages.
  const detailFrom = Math.max(0, turns.length - DETAIL_MESSAGES);
  const harvestFrom = harvestStart(turns, HARVEST_BUDGET_CHARS);
  let userHarvestFrom = 0;
  for (let i = turns.length - 1, users = 0; i >= 0; i--) {
    if (turns[i]!.role === "user" && ++users > HARVEST_USERS) {
      userHarvestFrom = i + 1;
      break;
    }
  }
  const resultOf = new Map<string, string>();
  for (let i = detailFrom; i < turns.length; i++) {
    const m = turns[i]!;
    if (m.role === "tool") resultOf.set(m.tool_call_id, redactedText(m));
  }
  let unlistedActions = 0;

  for (const [i, m] of turns.entries()) {
    // Redacted before anything is taken from it: an identifier or a line lifted out of its
    // context ("password=…" becomes a bare word) can no longer be recognised as a secret.
    const text = redactedText(m);
    const sample = sampleOf(text);
    if (i >= harvestFrom || (m.role === "user" && i >= userHarvestFrom)) harvestMessage(harvest, withRedactedCalls(m), sample);
    if (focusTerms.length && (i >= detailFrom || m.role === "user") && focusTerms.some((t) => sample.toLowerCase().includes(t))) {
      focusHits.push(`- [${m.role}] ${oneLine(text, 400)}`);
    }
    if (m.role === "user") {
      if (firstUser === null) firstUser = text;
      userTexts.push(text);
      for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
        if (CONSTRAINT_RE.test(sentence) && sentence.length <= 300 && !kept(sentence)) constraints.push(`- "${oneLine(sentence, 240)}"`);
      }
    } else if (m.role === "assistant") {
      const calls = toolCallsOf(m);
      const said = text.trim();
      if (said && !calls.length) lastAssistantText = said;
      if (i < detailFrom) {
        unlistedActions += calls.length + (said && !calls.length ? 1 : 0);
        continue;
      }
      for (const call of calls) {
        const info = input.calls.get(call.id) ?? { name: call.function.name, arguments: call.function.arguments };
        const result = resultOf.get(call.id);
        actions.push(`${commandOf(info)} — ${result === undefined ? "no result recorded" : outcome(result)}`);
      }
      if (!calls.length && said) actions.push(`said: ${oneLine(said, 160)}`);
    } else if (m.role === "tool" && i >= detailFrom) {
      let found = 0;
      for (const line of sample.split("\n")) {
        if (ERROR_LINE_RE.test(line) && line.trim().length > 8) {
          errors.push(`- ${oneLine(line, 200)}`);
          if (++found >= ERRORS_PER_RESULT) break;
        }
      }
    }
  }

  const header = `${EXTRACTIVE_TAG} ${input.reason} Verify details against the live state before relying on them.]`;
  const sections: Array<[string, string]> = [];
  sections.push([
    HEADINGS.request,
    input.latestRequest === null
      ? NO_USER_SENTINEL
      : kept(input.latestRequest)
        ? "The newest user message in the compacted turns is kept verbatim after this summary."
        : `Newest user message in the compacted turns (verbatim; newer messages after this summary take precedence):\n${quoteBlock(input.latestRequest, 2_000)}`,
  ]);
  const opening = input.firstRequest ?? firstUser;
  const openingLine = opening === null ? "No user goal recorded." : kept(opening) ? "The opening request (the task), kept verbatim in this context." : `Opening request: "${oneLine(opening, 400)}"`;
  const goal = previous.get(HEADINGS.goal) ?? openingLine;
  sections.push([HEADINGS.goal, goal]);
  const prevConstraints = previous.get(HEADINGS.constraints);
  const allConstraints = dedupe([...(prevConstraints && prevConstraints !== "None" ? prevConstraints.split("\n") : []), ...constraints]);
  sections.push([HEADINGS.constraints, allConstraints.length ? allConstraints.slice(-8).join("\n") : "None recorded."]);

  // Progress continues the numbering of the previous summary.
  const prevProgress = (previous.get(HEADINGS.progress) ?? "").split("\n").filter((l) => /^\d+\.\s/.test(l) || /^…/.test(l));
  let next = 1;
  for (const line of prevProgress) {
    const n = Number(/^(\d+)\./.exec(line)?.[1]);
    if (Number.isFinite(n)) next = Math.max(next, n + 1);
  }
  const newProgress = actions.map((a, i) => `${next + unlistedActions + i}. ${a}`);
  if (unlistedActions > 0) newProgress.unshift(`… (${unlistedActions} earlier actions, ${next}–${next + unlistedActions - 1}, not listed)`);
  sections.push([HEADINGS.progress, [...prevProgress, ...newProgress].join("\n") || "None recorded."]);
  sections.push([
    HEADINGS.state,
    lastAssistantText ? `Last assistant statement in the compacted turns: "${oneLine(lastAssistantText, 500)}"` : "Unknown (not recoverable without a model).",
  ]);
  sections.push([HEADINGS.decisions, previous.get(HEADINGS.decisions) ?? "Not recoverable without a model; see Progress."]);

  // Identifiers are what a continuation needs most: they get a fixed share of
  // the budget, filled in rank order (carried-over ones count as mentioned).
  const prevIdText = `${previous.get(HEADINGS.files) ?? ""}\n${previous.get(ANCHOR_HEADING) ?? ""}`;
  const prevIds = [...new Set([...prevIdText.matchAll(/`([^`]+)`/g)].map((m) => m[1]!))];
  const idLines = formatIdentifiers(chooseIdentifiers(harvest, prevIds, Math.max(300, Math.floor(budgetChars * FILES_SHARE))));
  sections.push([HEADINGS.files, idLines.join("\n") || "None recorded."]);
  // The exact commands, error lines, paths and numbers of the dropped turns: the model can look nothing up.
  const facts = renderDroppedFacts(collectDroppedFacts(turns), Math.floor(budgetChars * FACTS_SHARE), statedInText(keptText));
  if (facts) sections.push([FACTS_HEADING, facts.slice(FACTS_HEADING.length + 1)]);
  const prevErrors = previous.get(HEADINGS.errors);
  // Error lines the facts section quotes verbatim are not listed twice.
  const quoted = new Set(facts.split("\n").map((l) => `- ${oneLine(l.slice(2), 200)}`));
  const allErrors = dedupe([...(prevErrors && !prevErrors.startsWith("None") ? prevErrors.split("\n") : []), ...errors.filter((e) => !quoted.has(e))]);
  sections.push([HEADINGS.errors, allErrors.length ? allErrors.slice(-ERRORS_KEPT).join("\n") : "None recorded."]);
  sections.push([HEADINGS.questions, /\?\s*$/.test(lastAssistantText) ? `Assistant asked: "${oneLine(lastAssistantText, 300)}"` : "None recorded."]);
  sections.push([HEADINGS.next, input.latestRequest === null ? "Continue the work shown after this summary." : "Continue the latest request; check Current State first."]);
  if (focusHits.length) sections.push([`## Focus: ${oneLine(input.focusTopic ?? "", 80)}`, focusHits.slice(-12).join("\n")]);
  const recentUsers = userTexts.filter((t) => !kept(t)).slice(-4).reverse();
  if (recentUsers.length > 1) {
    sections.push(["## Recent User Messages (verbatim, newest first)", recentUsers.map((t) => quoteBlock(t, 600)).join("\n\n")]);
  }

  // The other sections take a fixed share beside the facts: a summary with few facts to keep is shorter, not padded.
  return redactSecrets(fitSections(header, sections, Math.min(budgetChars, facts.length + Math.floor(budgetChars * OTHER_SHARE))));
}

/**
 * A tool call as the agent ran it: the first line of its shell command whole
 * (≤ 200 chars, so it can be rerun), else the call with its arguments shortened.
 */
function commandOf(raw: CallInfo): string {
  const info = { ...raw, arguments: redactSecrets(raw.arguments) };
  try {
    const args: unknown = JSON.parse(info.arguments);
    const cmd = args && typeof args === "object" ? ((args as Record<string, unknown>).command ?? (args as Record<string, unknown>).cmd) : undefined;
    if (typeof cmd === "string" && /\s/.test(cmd.trim())) return `${info.name}: ${oneLine(cmd.trim().split("\n")[0]!, 200)}`;
  } catch {
    // Not JSON: described below.
  }
  return describeCall(info);
}

/** `m` with its tool-call arguments redacted (the same object when it has no calls). */
function withRedactedCalls(m: Message): Message {
  if (m.role !== "assistant" || !m.tool_calls?.length) return m;
  return {
    ...m,
    tool_calls: m.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: redactedArguments(c) } })),
  };
}

/**
 * Drop the oldest lines of the largest sections (never the request section)
 * until the text fits the budget; sizes are tracked incrementally so a
 * section of thousands of lines costs linear time.
 */
function fitSections(header: string, sections: Array<[string, string]>, budget: number): string {
  const entries = sections.map(([h, body]) => {
    const lines = body.split("\n");
    return { h, lines, start: 0, omitted: false, size: lines.reduce((x, l) => x + l.length + 1, 0) };
  });
  const sizeOf = () => header.length + entries.reduce((acc, e) => acc + e.h.length + 3 + e.size + (e.omitted ? OMITTED.length + 1 : 0), 0);
  let total = sizeOf();
  while (total > budget) {
    let worst: (typeof entries)[number] | null = null;
    for (const e of entries) {
      if (FIXED.has(e.h) || e.lines.length - e.start <= 1) continue;
      if (!worst || e.size > worst.size) worst = e;
    }
    if (!worst) break;
    // Drop up to half of the section per round, oldest lines first.
    const goal = Math.min(total - budget, Math.ceil(worst.size / 2));
    let dropped = 0;
    while (dropped < goal && worst.lines.length - worst.start > 1) {
      dropped += worst.lines[worst.start]!.length + 1;
      worst.start++;
    }
    worst.size -= dropped;
    worst.omitted = true;
    total = sizeOf();
  }
  const lines = entries.map((e) => [e.h, [...(e.omitted ? [OMITTED] : []), ...e.lines.slice(e.start)]] as [string, string[]]);
  // Still too long (single huge lines): cut each section's body hard.
  if (total > budget) {
    // Both sized to their own share already; the rest share what they leave.
    const own = (h: string) => h === HEADINGS.request || h === FACTS_HEADING;
    const fixed = lines.reduce((n, [h, b]) => n + (own(h) ? h.length + b.join("\n").length + 3 : h.length + 3), header.length);
    const share = Math.max(60, Math.floor((budget - fixed) / Math.max(1, lines.filter(([h]) => !own(h)).length)));
    for (const entry of lines) {
      if (own(entry[0])) continue;
      const body = entry[1].join("\n");
      if (body.length > share) entry[1] = [shorten(body, share)];
    }
  }
  return [header, ...lines.map(([h, b]) => `${h}\n${b.join("\n")}`)].join("\n\n");
}

const OMITTED = "… (earlier entries omitted)";
/** Budget shares of the two verbatim sections: recurring identifiers, and the dropped turns' exact facts. */
const FILES_SHARE = 0.05;
const FACTS_SHARE = 0.75;
/** What the sections other than the facts may take together. */
const OTHER_SHARE = 0.4;
/** Sections sized on their own (the request verbatim, identifiers by rank): never cut line-wise. */
const FIXED = new Set<string>([HEADINGS.request, HEADINGS.files, FACTS_HEADING]);

function outcome(result: string): string {
  // The verdict is at the start or the end of an output; never scan all of a huge one.
  const text = (result.length > 6_000 ? `${result.slice(0, 4_000)}\n${result.slice(-2_000)}` : result).trim();
  if (!text) return "empty result";
  const errorLine = text.split("\n").find((l) => ERROR_LINE_RE.test(l));
  if (errorLine) return `error: ${oneLine(errorLine, 140)}`;
  const first = text.split("\n").find((l) => l.trim()) ?? "";
  return `${oneLine(first, 120)} (${result.length} chars)`;
}

function oneLine(text: string, max: number): string {
  return shorten(text.replace(/\s+/g, " ").trim(), max);
}


function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}
