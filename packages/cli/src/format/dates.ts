const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** `2026-12-05T22:58:20.123Z` or epoch ms → `5 December 2026, 22:58 UTC`; the input as given when it is not a time. */
export function humanTime(value: string | number): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${clock(d)} UTC`;
}

/** Two times as one span: `8 May 2023, 13:56–14:20 UTC`, or two full times across days. */
export function humanSpan(from: number, to: number): string {
  if (to <= from) return humanTime(from);
  const a = new Date(from);
  const b = new Date(to);
  const sameDay = a.getUTCFullYear() === b.getUTCFullYear() && a.getUTCMonth() === b.getUTCMonth() && a.getUTCDate() === b.getUTCDate();
  return sameDay ? `${humanTime(from).replace(" UTC", "")}–${clock(b)} UTC` : `${humanTime(from).replace(" UTC", "")} – ${humanTime(to)}`;
}

function clock(d: Date): string {
  return `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
}
