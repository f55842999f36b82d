/**
 * A cheap faithfulness check: the identifiers, paths and multi-digit numbers a
 * summary states must occur in its sources. A summary that invents them is
 * rejected and the escalation moves on, instead of storing a confident lie.
 */

const CHECKED =
  /(?:[A-Za-z0-9_.-]*\/[A-Za-z0-9_./-]*[A-Za-z0-9_]|\b[A-Za-z_][A-Za-z0-9_]*\.[a-z]{1,4}\b|\b\d{3,}(?:\.\d+)?\b|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]+\b)/g;

export interface FaithfulnessReport {
  checked: number;
  unsupported: string[];
  ratio: number;
}

export function checkFaithfulness(summary: string, source: string): FaithfulnessReport {
  const haystack = source.toLowerCase();
  const seen = new Set<string>();
  const unsupported: string[] = [];
  for (const m of summary.matchAll(CHECKED)) {
    const token = m[0];
    const key = token.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    if (!haystack.includes(key)) unsupported.push(token);
  }
  return { checked: seen.size, unsupported, ratio: seen.size ? unsupported.length / seen.size : 0 };
}
