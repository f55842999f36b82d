/**
 * Resolve the compaction threshold percent for a model from a map of
 * per-model overrides.
 *
 * - A bare key applies when `model` contains it (case-sensitive).
 * - A key `provider:substring` applies only when the provider (trimmed,
 *   lowercased) equals `provider` and `model` contains `substring`.
 *   Note that Ollama-style `name:tag` keys are therefore provider-scoped.
 * - The longest matching substring wins; at equal length a scoped key beats a
 *   bare one; remaining ties go to the lexicographically greatest key.
 * - Nothing applies, an empty map or an empty model: `fallback`.
 *
 * @example resolveModelThreshold("glm-5.2-1M", { "glm-5.2": 0.4, "glm-5.2-1M": 0.25 }, 0.75) // 0.25
 */
export function resolveModelThreshold(
  model: string | null | undefined,
  thresholds: Readonly<Record<string, number | string>> | null | undefined,
  fallback: number,
  provider?: string | null,
): number {
  if (!thresholds || !model) return fallback;
  const wantProvider = (provider ?? "").trim().toLowerCase();
  let best: { len: number; scoped: number; key: string; value: number | string } | null = null;
  for (const [key, value] of Object.entries(thresholds)) {
    const colon = key.indexOf(":");
    let len: number;
    let scoped: number;
    if (colon < 0) {
      if (!model.includes(key)) continue;
      len = key.length;
      scoped = 0;
    } else {
      const scope = key.slice(0, colon).trim().toLowerCase();
      const sub = key.slice(colon + 1);
      if (scope !== wantProvider || !model.includes(sub)) continue;
      len = sub.length;
      scoped = 1;
    }
    if (
      !best ||
      len > best.len ||
      (len === best.len && (scoped > best.scoped || (scoped === best.scoped && key > best.key)))
    ) {
      best = { len, scoped, key, value };
    }
  }
  if (!best) return fallback;
  const n = Number(best.value);
  return Number.isFinite(n) ? n : fallback;
}
