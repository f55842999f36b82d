import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, user } from "./msgs.js";

/** Unlabelled turns that hold no query word, so no two labelled turns are neighbours (neighbour context reaches 2). */
const gap = () => [user("the weather stayed grey all day"), asst("we stayed in and read"), user("then it rained again")];

/**
 * `top` is the strongest turn; `tiedOlder` and `tiedNewer` hold the query's two words once each, in the same
 * number of words at the same distance, so both stores score them alike and rank the newer one first.
 */
async function seqsFor(store: LcmStoreDriver, query: string, top: string, tiedOlder: string, tiedNewer: string): Promise<number[]> {
  const c = await store.conversation(`speaker-${query}`);
  const msgs = [user(top), ...gap(), asst(tiedOlder), ...gap(), user(tiedNewer), ...gap()];
  await store.ingest(c.id, msgs);
  const r = await searchHistory(store, { query, conversationId: c.id, scope: "messages" });
  return r.hits.map((h) => h.seq!);
}

/** The speaker rule (src/search/speaker.ts) ranks the same on every store. */
export function searchSpeakerContract(options: StoreContractOptions): void {
  describe("search: a named speaker's own turns", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("a question naming a speaker whose turn leads favours that speaker's turns over the other side's", async () => {
      const store = await scope.open({ redaction: false });
      // Without the rule the two tied turns rank newest first (Bruno's); Alice's own turn is favoured.
      const seqs = await seqsFor(store, "alice garden", "Alice: garden garden garden, the whole garden", "Alice: garden Bruno", "Bruno: Alice garden");
      expect(seqs).toEqual([0, 4, 8]);
    });

    it("leaves the ranking alone when the best turn is someone else's (the question may name the wrong person)", async () => {
      const store = await scope.open({ redaction: false });
      const seqs = await seqsFor(store, "alice kayak", "Bruno: kayak kayak kayak, Alice", "Alice: kayak Bruno", "Bruno: Alice kayak");
      expect(seqs).toEqual([0, 8, 4]);
    });
  });
}
