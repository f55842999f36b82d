import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../src/search/index.js";
import { expansionTerms } from "../src/search/feedback.js";
import { fuseRanked, onScale } from "../src/search/fusion.js";
import { asst, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function store() {
  const t = tempStore({ redaction: false });
  cleanups.push(t.cleanup);
  return t.store;
}

const row = (rowid: number, score = 1) => ({ rowid, score, createdAt: rowid });

describe("rank fusion", () => {
  it("sums weighted reciprocal ranks; a row both lists hold leads", () => {
    const fused = fuseRanked([
      { rows: [row(1), row(2), row(3)], weight: 2 },
      { rows: [row(3), row(4)], weight: 1 },
    ]);
    expect(fused.map((r) => r.rowid)).toEqual([3, 1, 2, 4]);
  });

  it("a reordered list keeps the score scale of the list it reorders", () => {
    const out = onScale([row(2), row(1), row(9)], [row(1, 5), row(2, 3)]);
    expect(out.map((r) => [r.rowid, r.score])).toEqual([[2, 5], [1, 3], [9, 3]]);
  });
});

describe("pseudo-relevance feedback", () => {
  it("takes the best matches' shared rare words, and reorders only the question's own matches", async () => {
    const s = store();
    const c = s.conversation("prf");
    const filler = (i: number) => asst(`Melanie: the weather was grey on day ${i} and we stayed in`);
    const msgs = [
      user("Caroline: I went to the pride parade downtown, the rainbow flags everywhere were amazing"),
      ...Array.from({ length: 5 }, (_, i) => filler(i)),
      user("Caroline: next month the pride parade committee wants my rainbow mural"),
      ...Array.from({ length: 5 }, (_, i) => filler(10 + i)),
      user("Caroline: an event for the community, the rainbow flags again, so good"),
      ...Array.from({ length: 5 }, (_, i) => filler(20 + i)),
      user("Caroline: an event at work, a boring community meeting about parking"),
      ...Array.from({ length: 5 }, (_, i) => filler(30 + i)),
      user("Caroline: the rainbow mural is finished"),
    ];
    s.ingest(c.id, msgs, { mode: "append" });
    const hits = (await searchHistory(s, { query: "pride parade event community", conversationId: c.id })).hits.map((h) => h.seq);
    // The best messages' shared rare words are the feedback round's words; the speaker label and the question's words are not.
    const search = await s.searchStore();
    const top = [0, 6, 12].map((i) => ({ body: String(msgs[i]!.content), score: 1 }));
    const words = await expansionTerms(search, top, ["pride", "parade", "event", "community"]);
    expect(words).toContain("rainbow");
    expect(words).not.toContain("caroline");
    expect(words).not.toContain("parade");
    // The mural message shares the feedback words but holds none of the question's: feedback never makes it a hit.
    expect(hits.sort((x, y) => x! - y!)).toEqual([0, 6, 12, 18]);
  });

  it("a word in thousands of messages is answered complete, ranked by its own BM25 (no feedback round for one word)", async () => {
    const s = store();
    const c = s.conversation("many");
    // 6,000 matches: past the cap of neighbour scoring, which a corpus-wide second round would have hit.
    // 30,000 messages of common filler words, "lighthouse" in every fifth: the best matches lend filler words, and a
    // second query of them matches nearly every message with close scores (more than the cap of neighbour scoring).
    const filler = "build test deploy config value error module request response server client cache index query table".split(" ");
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const msgs = Array.from({ length: 30_000 }, (_, i) => {
      const words = Array.from({ length: 8 }, () => filler[Math.floor(next() * filler.length)]!);
      if (i % 5 === 0) words.splice(Math.floor(next() * 8), 0, "lighthouse");
      return i % 2 ? asst(words.join(" ")) : user(words.join(" "));
    });
    s.ingest(c.id, msgs, { mode: "append" });
    const res = await searchHistory(s, { query: "lighthouse", conversationId: c.id, scope: "messages" });
    expect(res.notes.join(" ")).not.toMatch(/many matches/);
    expect(res.complete).toBe(true);
    for (const h of res.hits) expect(String(h.snippet ?? "")).toMatch(/lighthouse/);
    const scores = res.hits.map((h) => h.score ?? 0);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // The same store's own ranking of the word: feedback did not reorder it.
    const search = await s.searchStore();
    const own = await search.rankMessages('body:("lighthouse")', { conversationId: c.id }, { limit: res.hits.length, offset: 0 });
    expect(res.hits.map((h) => h.messageId)).toEqual(own.map((r) => r.rowid));
  });

  it("one match: nothing to learn from, the ranking is the first round's", async () => {
    const s = store();
    const c = s.conversation("one");
    s.ingest(c.id, [user("the deploy failed with ECONNREFUSED"), asst("retrying the deploy now")], { mode: "append" });
    const hits = (await searchHistory(s, { query: "ECONNREFUSED", conversationId: c.id })).hits;
    expect(hits.map((h) => h.seq)).toEqual([0]);
  });
});
