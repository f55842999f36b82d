/**
 * Dates named in a query ("in July 2023", "on 13 October 2023", "October 13, 2023", "2023-10-13"),
 * as windows of message time. A host may pass when each message was said (`messageTimes`), and
 * LCM stores that time; a question about a date is then about the messages said on or around it,
 * whether or not their text repeats the date. Only dates with a year are read: "May" alone is a
 * word (and a verb), and a day without a year names no single window.
 */
export interface DateWindow {
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive. */
  before: number;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const ABBREVIATIONS: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, jun: 5, jul: 6, aug: 7, sep: 8, sept: 8, oct: 9, nov: 10, dec: 11 };
const MONTH = `(${MONTHS.join("|")}|${Object.keys(ABBREVIATIONS).join("|")})\\.?`;
const DAY = "(\\d{1,2})(?:st|nd|rd|th)?(?!\\d)";
const YEAR = "(\\d{4})(?!\\d)";
/** Times are compared in UTC; a day's window is widened by this much on each side (the asker's time zone is unknown). */
export const DAY_MARGIN_MS = 86_400_000;
/** Most windows read from one query (each one is a ranking round). */
export const MAX_DATE_WINDOWS = 3;

const FORMS: Array<{ re: RegExp; read: (m: RegExpExecArray) => [number, number, number | null] }> = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, read: (m) => [Number(m[1]), Number(m[2]) - 1, Number(m[3])] },
  { re: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}`, "gi"), read: (m) => [Number(m[3]), monthIndex(m[2]!), Number(m[1])] },
  { re: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}`, "gi"), read: (m) => [Number(m[3]), monthIndex(m[1]!), Number(m[2])] },
  { re: new RegExp(`\\b${MONTH},?\\s+${YEAR}`, "gi"), read: (m) => [Number(m[2]), monthIndex(m[1]!), null] },
  { re: /\b(\d{4})-(\d{2})\b(?!-\d)/g, read: (m) => [Number(m[1]), Number(m[2]) - 1, null] },
];

function monthIndex(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, "");
  const full = MONTHS.indexOf(n);
  return full >= 0 ? full : (ABBREVIATIONS[n] ?? -1);
}

/** The windows of the dates a query names, in the order they appear; a span of text is read by the first form that matches it. */
export function queryDates(query: string): DateWindow[] {
  const taken: Array<[number, number]> = [];
  const found: Array<{ at: number; window: DateWindow }> = [];
  for (const form of FORMS) {
    form.re.lastIndex = 0;
    for (let m = form.re.exec(query); m; m = form.re.exec(query)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      const [year, month, day] = form.read(m);
      const window = windowOf(year, month, day);
      if (!window) continue;
      taken.push([start, end]);
      found.push({ at: start, window });
    }
  }
  found.sort((a, b) => a.at - b.at);
  const out: DateWindow[] = [];
  for (const f of found) if (!out.some((w) => w.since === f.window.since && w.before === f.window.before)) out.push(f.window);
  return out.slice(0, MAX_DATE_WINDOWS);
}

function windowOf(year: number, month: number, day: number | null): DateWindow | null {
  if (year < 1970 || year > 9999 || month < 0 || month > 11) return null;
  if (day === null) return { since: Date.UTC(year, month, 1) - DAY_MARGIN_MS, before: Date.UTC(year, month + 1, 1) + DAY_MARGIN_MS };
  const start = Date.UTC(year, month, day);
  if (day < 1 || new Date(start).getUTCMonth() !== month) return null;
  return { since: start - DAY_MARGIN_MS, before: start + 2 * DAY_MARGIN_MS };
}
