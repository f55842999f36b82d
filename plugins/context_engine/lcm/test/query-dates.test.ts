import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../src/search/index.js";
import { DAY_MARGIN_MS, queryDates } from "../src/search/query-dates.js";
import { DATED_MESSAGES, DATED_TIMES, JULY_PAINT_SEQ } from "./dated-fixture.js";
import { tempStore } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const day = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

describe("dates named in a query", () => {
  it("reads day-month-year, month-day-year, month-year and ISO forms, each a window widened by a day", () => {
    expect(queryDates("what did Mel paint on 13 October 2023").map((w) => [iso(w.since), iso(w.before)])).toEqual([["2023-10-12", "2023-10-15"]]);
    expect(queryDates("planted on October 13th, 2023?")).toEqual(queryDates("13 october 2023"));
    expect(queryDates("paint july 2023")).toEqual([{ since: Date.UTC(2023, 6, 1) - DAY_MARGIN_MS, before: Date.UTC(2023, 7, 1) + DAY_MARGIN_MS }]);
    expect(queryDates("deploy 2024-02-29 then 2024-03")).toEqual([
      { since: Date.UTC(2024, 1, 29) - day, before: Date.UTC(2024, 2, 1) + day },
      { since: Date.UTC(2024, 2, 1) - day, before: Date.UTC(2024, 3, 1) + day },
    ]);
    expect(queryDates("Sept 2022 and jan. 2021").map((w) => iso(w.since + day))).toEqual(["2022-09-01", "2021-01-01"]);
  });

  it("reads nothing from a month without a year, a year alone, or a day that does not exist", () => {
    expect(queryDates("what may we do in May")).toEqual([]);
    expect(queryDates("the 2023 roadmap")).toEqual([]);
    expect(queryDates("February 30, 2022")).toEqual([]);
    expect(queryDates("march 12 times")).toEqual([]);
  });
});

describe("lcm_grep with a date in the query", () => {
  it("ranks the messages said then beside the words, and never makes a message without the words a hit", async () => {
    const t = tempStore({ redaction: false });
    cleanups.push(t.cleanup);
    const c = t.store.conversation("dates");
    t.store.ingest(c.id, DATED_MESSAGES, { mode: "append", timestamps: DATED_TIMES });
    const words = await searchHistory(t.store, { query: "paint fence", conversationId: c.id });
    expect(words.hits[0]!.seq).not.toBe(JULY_PAINT_SEQ);
    const dated = await searchHistory(t.store, { query: "paint fence July 2023", conversationId: c.id });
    expect(dated.hits[0]!.seq).toBe(JULY_PAINT_SEQ);
    // The July picnic message holds none of the words: the date alone never makes it a hit.
    expect(dated.hits.map((h) => h.seq).sort()).toEqual([0, 1, 2, 3]);
    expect(dated.notes.join(" ")).toContain("2023-06-30..2023-08-01");
    // A date no message was said on changes nothing.
    const none = await searchHistory(t.store, { query: "paint fence July 2020", conversationId: c.id });
    expect(none.hits.map((h) => h.seq)).toEqual(words.hits.map((h) => h.seq));
    // Paging stays exact: two pages of two give the one list of four.
    const first = await searchHistory(t.store, { query: "paint fence July 2023", conversationId: c.id, limit: 2 });
    const second = await searchHistory(t.store, { query: "paint fence July 2023", conversationId: c.id, limit: 2, cursor: first.nextCursor! });
    expect([...first.hits, ...second.hits].map((h) => h.seq)).toEqual(dated.hits.map((h) => h.seq));
  });
});
