/** A parsed tool id: a summary id or a message id (`msg_12`, `12`, or the number 12). */
export type Ref = { kind: "summary"; id: string } | { kind: "message"; id: number };

export function parseRef(raw: string | number): Ref | null {
  if (typeof raw === "number") return Number.isSafeInteger(raw) && raw > 0 ? { kind: "message", id: raw } : null;
  const s = raw.trim();
  if (/^sum_[0-9a-f]{16}$/i.test(s)) return { kind: "summary", id: s.toLowerCase() };
  const m = /^(?:msg_|message:|#)?(\d{1,15})$/i.exec(s);
  if (m) return { kind: "message", id: Number(m[1]) };
  return null;
}

export function messageRef(id: number): string {
  return `msg_${id}`;
}

export function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
