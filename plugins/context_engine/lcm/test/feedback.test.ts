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

  it("one match: nothing to learn from, the ranking is the first round's", async () => {
    const s = store();
    const c = s.conversation("one");
    s.ingest(c.id, [user("the deploy failed with ECONNREFUSED"), asst("retrying the deploy now")], { mode: "append" });
    const hits = (await searchHistory(s, { query: "ECONNREFUSED", conversationId: c.id })).hits;
    expect(hits.map((h) => h.seq)).toEqual([0]);
  });
});
