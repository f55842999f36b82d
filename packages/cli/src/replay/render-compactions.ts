import { escapeHtml } from "../format/html.js";
import { formatDuration, formatInt, formatShare } from "../format/numbers.js";
import { humanSpan, humanTime } from "../format/dates.js";
import { splitSummaries, summaryLabel, summarySpan } from "../format/summary-text.js";
import { triggerPhrase } from "../format/triggers.js";
import { compactionId } from "./chart-data.js";
import type { DetailMessage } from "./compaction-detail.js";
import type { CompactionLedgerFacts } from "./metrics.js";
import type { ReplaySessionResult } from "./report.js";

/** A summary stamp may round past the last replaced message's time by this much. */
const STAMP_SLACK_MS = 60_000;

/** Shown per replaced message; the full text is in the engine, not in the report. */
const PREVIEW_CHARS = 400;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat || "(empty)";
}

function messageItem(m: DetailMessage): string {
  const at = m.at !== undefined ? ` <span class="tok">${escapeHtml(humanTime(m.at))}</span>` : "";
  return `<li><span class="role">${escapeHtml(m.role)}</span> <span class="tok">${formatInt(m.tokens)} tok</span>${at} <span class="text">${escapeHtml(preview(m.text))}</span></li>`;
}

/**
 * What a compaction put in, summary first: a lossless engine's message holds a
 * note to the model before its summaries; the note is folded away under them.
 * The engine's time stamps are shown only when the recording has times (the host hands them to the
 * engine; without them they would be the replay's clock) and they agree with it: a stamp later than
 * the last replaced message was said is an engine's own clock, not the recording's.
 */
function putIn(m: DetailMessage, recordedUntil: number | null): string {
  const parts = splitSummaries(m.text);
  if (!parts) return `<pre class="summary-text" data-role="${escapeHtml(m.role)}">${escapeHtml(m.text)}</pre>`;
  const label = (attrs: Record<string, string>) => {
    const span = recordedUntil !== null ? summarySpan(attrs) : null;
    return span && span.to <= recordedUntil! + STAMP_SLACK_MS ? `${summaryLabel(attrs)} · said ${humanSpan(span.from, span.to)}` : summaryLabel(attrs);
  };
  const summaries = parts.summaries
    .map((s) => `<p class="summary-label meta">${escapeHtml(label(s.attrs))}</p><pre class="summary-text" data-role="${escapeHtml(m.role)}">${escapeHtml(s.body)}</pre>`)
    .join("");
  if (!parts.note) return summaries;
  const lines = parts.note.split("\n").length;
  return `${summaries}<details class="model-note"><summary>What the model is told with it (${lines} line${lines === 1 ? "" : "s"})</summary><pre class="note-text">${escapeHtml(parts.note)}</pre></details>`;
}

/**
 * One `<details>` per committed compaction: tokens before and after, the
 * summary text it put in and the span of messages it replaced. Chart markers
 * open them by id.
 */
export function compactionsSection(session: ReplaySessionResult, sessionIndex: number, colorOf: (engine: string) => string): string {
  const items: string[] = [];
  session.runs.forEach((run, engineIndex) => {
    // The recording has times (some replaced span was dated by them): the engine was given them too.
    const recordedUntil = Math.max(...run.compactions.map((c) => c.detail?.recordedSpan?.to ?? Number.NEGATIVE_INFINITY));
    run.compactions.forEach((c, i) => {
      if (c.outcome !== "committed") return;
      const d = c.detail;
      const tokens = c.beforeTokens !== null && c.afterTokens !== null ? `${formatInt(c.beforeTokens)} → ${formatInt(c.afterTokens)} tokens` : "tokens not reported";
      const saved = c.beforeTokens && c.afterTokens !== null ? ` (−${formatShare((c.beforeTokens - c.afterTokens) / c.beforeTokens)})` : "";
      const head =
        `<span class="swatch" style="background:${colorOf(run.engine)}"></span><strong>${escapeHtml(run.engine)}</strong> · before request ${c.beforeRequest} ` +
        `(turn ${c.turn + 1}${c.trigger ? `, ${escapeHtml(triggerPhrase(c.trigger))}` : ""}) · <span class="tokens">${tokens}${saved}</span> · ${escapeHtml(formatDuration(c.durationMs))}`;
      const ledger = c.ledger ? ledgerNote(c.ledger) : "";
      let body: string;
      if (!d) {
        body = `${ledger}<p class="meta">The replay could not see the conversation before and after this compaction.</p>`;
      } else {
        const more = (shown: number, total: number) => (total > shown ? `<p class="meta">… and ${total - shown} more</p>` : "");
        const summary = d.added.length ? d.added.map((m) => putIn(m, Number.isFinite(recordedUntil) ? recordedUntil : null)).join("") + more(d.added.length, d.addedCount) : `<p class="meta">No new message: the engine only removed messages.</p>`;
        const said = d.recordedSpan ? ` Said ${escapeHtml(humanSpan(d.recordedSpan.from, d.recordedSpan.to))} (the recording's times).` : "";
        // The summary comes first: on a phone it is what shows when the compaction opens.
        body =
          `<h4>Summary put in</h4>${summary}${ledger}` +
          `<p class="meta">${d.messagesBefore} → ${d.messagesAfter} messages; ${d.replacedCount} replaced (${formatInt(d.replacedTokens)} tokens), ${d.addedCount} put in.${said}</p>` +
          `<h4>Span replaced</h4>${d.replaced.length ? `<ol class="replaced">${d.replaced.map(messageItem).join("")}</ol>${more(d.replaced.length, d.replacedCount)}` : `<p class="meta">Nothing removed.</p>`}`;
      }
      items.push(
        `<details class="compaction" id="${compactionId(sessionIndex, engineIndex, i)}" data-engine="${escapeHtml(run.engine)}" data-request="${c.beforeRequest}"><summary>${head}</summary><div class="compaction-body">${body}</div></details>`,
      );
    });
  });
  if (items.length === 0) return "";
  // A long list starts folded; a marker click opens it.
  return `<details class="compactions"${items.length <= 12 ? " open" : ""}><summary>Compactions (${items.length}) — click a ◇ on the chart to open one</summary>${items.join("")}</details>`;
}

/** The evidence figures, for sessions whose data has questions (LoCoMo). */
export function evidenceSection(session: ReplaySessionResult, colorOf: (engine: string) => string): string {
  const runs = session.runs.filter((r) => r.evidence);
  if (runs.length === 0) return "";
  const rows = runs.map((r) => {
    const e = r.evidence!;
    const share = (n: number, of: number) => `${n}/${of} <span class="meta">(${formatShare(of ? n / of : null)})</span>`;
    return (
      `<tr data-engine="${escapeHtml(r.engine)}"><td><span class="swatch" style="background:${colorOf(r.engine)}"></span>${escapeHtml(r.engine)}</td>` +
      `<td>${e.questions}</td><td>${share(e.inContext, e.evidenceTurns)}</td><td>${share(e.questionsInContext, e.questions)}</td>` +
      `<td>${e.recoverable === null ? "n/a (lossy)" : share(e.recoverable, e.evidenceTurns)}</td>` +
      `<td>${e.questionsRecoverable === null ? "n/a (lossy)" : share(e.questionsRecoverable, e.questions)}</td></tr>`
    );
  });
  return (
    `<h3>Evidence recall (the data's questions)</h3><div class="table-wrap"><table class="evidence"><thead><tr><th>engine</th><th>questions</th>` +
    `<th>evidence turns in the final context</th><th>questions with all evidence in context</th><th>evidence turns recoverable</th><th>questions recoverable</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></div>`
  );
}

/** The host ledger's line for one compaction: its id, what left, and how much of the cached prefix survived. */
function ledgerNote(l: CompactionLedgerFacts): string {
  const kept = l.cache.bytesBefore > 0 ? formatShare(l.cache.identicalPrefixBytes / l.cache.bytesBefore) : "–";
  const focus = l.focusTopic ? `, focus “${escapeHtml(l.focusTopic)}”` : "";
  return (
    `<p class="meta ledger">Ledger ${escapeHtml(l.id)} (${escapeHtml(l.engine)}${focus}): ${l.removed} message${l.removed === 1 ? "" : "s"} left the context, kept whole in the ledger; ${l.inserted} put in. ` +
    `Prompt cache: ${formatInt(l.cache.identicalPrefixBytes)} of ${formatInt(l.cache.bytesBefore)} request bytes identical before and after (${kept}).</p>`
  );
}
