import { afterEach, describe, expect, it } from "vitest";
import { asksQuestion } from "../src/search/neighbours.js";
import { searchHistory } from "../src/search/index.js";
import { makeEngine } from "./engine-setup.js";
import { asst, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

const filler = Array.from({ length: 6 }, (_, i) => asst(`filler line number ${i} about lunch`));
/** A turn about hiking, its reply naming the place, then unrelated turns and another message naming the place. */
const turns = (first: string) => [user(first), asst("tam was great today"), ...filler, asst("tam tam was great"), ...filler];

describe("an answer takes the words of the question before it", () => {
  it("reads a sentence ending in a question mark as a question, not one inside a URL or a pattern", () => {
    expect(asksQuestion("where did we go hiking on saturday?")).toBe(true);
    expect(asksQuestion('She asked "why not?" and left')).toBe(true);
    expect(asksQuestion("see https://example.com/a?b=1 for details")).toBe(false);
    expect(asksQuestion("the regex a?b matches ab")).toBe(false);
    expect(asksQuestion("we went hiking.")).toBe(false);
  });

  it("the reply to a question ranks above the question; after a statement with the same words it does not", async () => {
    const t = tempStore({ redaction: false });
    cleanups.push(t.cleanup);
    const asked = t.store.conversation("asked");
    const told = t.store.conversation("told");
    t.store.ingest(asked.id, turns("where did we go hiking on saturday?"), { mode: "append" });
    t.store.ingest(told.id, turns("we went hiking on saturday."), { mode: "append" });
    const seqs = async (conversationId: number, neighbourWeight?: number) =>
      (await searchHistory(t.store, { query: "hiking tam", conversationId, ...(neighbourWeight === undefined ? {} : { neighbourWeight }) })).hits.map((h) => h.seq);
    // After a question the reply holds "hiking" at full weight (twice the neighbour weight): it leads. The question
    // itself only asks about hiking (question-turns.ts): it scores half and falls below the other message naming the place.
    expect(await seqs(asked.id)).toEqual([1, 8, 0]);
    // After a statement it takes "hiking" at the neighbour weight only: the statement leads.
    expect(await seqs(told.id)).toEqual([0, 1, 8]);
    // Without neighbour context neither counts; only messages holding a query word are hits in every case.
    expect((await seqs(asked.id, 0)).sort()).toEqual([0, 1, 8]);
  });

  it("through handleToolCall, on the tested store", async () => {
    const { engine, cleanup } = makeEngine();
    cleanups.push(cleanup);
    await engine.onTurnComplete(turns("where did we go hiking on saturday?"), null, { sessionId: "qa" });
    const answer = JSON.parse(await engine.handleToolCall("lcm_grep", { query: "hiking tam" }, { sessionId: "qa" })) as { hits: Array<{ seq: number }> };
    // The reply leads on both stores (their scales differ below it); the hits are the messages holding a query word.
    expect(answer.hits[0]!.seq).toBe(1);
    expect(answer.hits.map((h) => h.seq).sort()).toEqual([0, 1, 8]);
  });
});
