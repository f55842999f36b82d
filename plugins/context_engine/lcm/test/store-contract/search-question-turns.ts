import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, user } from "./msgs.js";

/** Turns that hold no query word, so no two matching turns are neighbours (neighbour context reaches 2). */
const gap = () => [user("the weather stayed grey all day"), asst("we stayed in and read"), user("then it rained again")];

/** The asked-only rule (src/search/question-turns.ts) ranks the same on every store. */
export function searchQuestionTurnsContract(options: StoreContractOptions): void {
  describe("search: a turn that only asks about the query's words", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("ranks below a turn that states them, though its own words score higher", async () => {
      const store = await scope.open({ redaction: false });
      const c = await store.conversation("asked-only");
      const asking = "Jon: dance style? which dance style do you like?";
      const stating = "Gina: my favourite dance style is contemporary";
      await store.ingest(c.id, [user(asking), ...gap(), asst(stating), ...gap()]);
      // By their own words the question leads (it says each word twice); one word keeps the store's own order (no rule).
      const one = await searchHistory(store, { query: "dance", conversationId: c.id, scope: "messages" });
      expect(one.hits.map((h) => h.seq)).toEqual([0, 4]);
      const both = await searchHistory(store, { query: "dance style", conversationId: c.id, scope: "messages" });
      expect(both.hits.map((h) => h.seq)).toEqual([4, 0]);
    });

    it("leaves a turn alone that states a query word beside its question", async () => {
      const store = await scope.open({ redaction: false });
      const c = await store.conversation("asked-and-said");
      await store.ingest(c.id, [user("Jon: dance style! which dance style do you like?"), ...gap(), asst("Gina: my favourite dance style is contemporary"), ...gap()]);
      const r = await searchHistory(store, { query: "dance style", conversationId: c.id, scope: "messages" });
      expect(r.hits.map((h) => h.seq)).toEqual([0, 4]);
    });
  });
}
