/**
 * The candidate a mistyped name most likely meant: one that differs only in
 * case, or within edit distance 2; null when none is that close. For
 * "did you mean" hints on unknown keys (tool arguments, config files).
 */
export function closestName(name: string, candidates: readonly string[]): string | null {
  let best: [string, number] | null = null;
  for (const c of candidates) {
    const d = c.toLowerCase() === name.toLowerCase() ? 0 : editDistance(name, c);
    if (d <= 2 && (!best || d < best[1])) best = [c, d];
  }
  return best ? best[0] : null;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
