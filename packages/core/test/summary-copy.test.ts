import { describe, expect, it } from "vitest";
import { isCopyOf } from "../src/index.js";

/** The copy check as it was before it stopped counting a long source's words early (the reference). */
function referenceIsCopyOf(summary: string, source: string): boolean {
  const words = (t: string) => t.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
  const a = words(summary);
  const b = words(source);
  if (a.length < 24 || b.length < 24) return a.length > 0 && a.join(" ") === b.join(" ");
  if (a.length < b.length * 0.5) return false;
  const share = (from: string[], into: string[]) => {
    const grams = new Set<string>();
    for (let i = 0; i + 8 <= into.length; i++) grams.add(into.slice(i, i + 8).join(" "));
    let shared = 0;
    let total = 0;
    for (let i = 0; i + 8 <= from.length; i += 4) {
      total++;
      if (grams.has(from.slice(i, i + 8).join(" "))) shared++;
    }
    return total > 0 ? shared / total : 0;
  };
  return share(b, a) >= 0.6 || share(a, b) >= 0.8;
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Words with capitals, digits, underscores, non-Latin letters and the dotted capital I (its lower case is two code points).
const VOCAB = ["Parser", "cache", "retry_3", "İstanbul", "ÉCOLE", "数据", "x", "42", "Ωmega", "src/mod.ts", "a-b", "—", "", "  ", "\n"];

function text(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(VOCAB[Math.floor(r() * VOCAB.length)]!);
  return out.join(r() < 0.5 ? " " : ", ");
}

describe("isCopyOf", () => {
  it("agrees with the reference on short, long, copied and partly copied texts (fixed seed)", () => {
    const r = rng(2026);
    for (let k = 0; k < 2_000; k++) {
      const source = text(r, Math.floor(r() * 200));
      const pick = r();
      const summary =
        pick < 0.25 ? source : pick < 0.5 ? source.slice(0, Math.floor(source.length * (0.3 + r() * 0.7))) : pick < 0.75 ? text(r, Math.floor(r() * 120)) : `${source} ${text(r, 10)}`;
      expect(isCopyOf(summary, source), `case ${k}`).toBe(referenceIsCopyOf(summary, source));
    }
  });

  it("tells a short summary of a long source from a copy without splitting the whole source", () => {
    const source = Array.from({ length: 20_000 }, (_, i) => `word${i % 97}`).join(" ");
    expect(isCopyOf("a short summary of the work", source)).toBe(false);
    expect(isCopyOf(source, source)).toBe(true);
  });
});
