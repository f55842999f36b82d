import { describe, expect, it } from "vitest";
import { openLcmStore } from "../src/store/index.js";
import { tempStore, user } from "./helpers.js";

describe("two handles on one file", () => {
  it("share conversations and see each other's writes (WAL)", () => {
    const a = tempStore();
    try {
      const b = openLcmStore({ path: a.store.path });
      try {
        const ca = a.store.conversation("shared");
        const cb = b.conversation("shared");
        expect(cb.id).toBe(ca.id);
        a.store.ingest(ca.id, [user("from a")]);
        expect(b.ingest(cb.id, [user("from a"), user("from b")]).appended).toBe(1);
        expect(a.store.getMessages(ca.id).map((m) => m.text)).toEqual(["from a", "from b"]);
      } finally {
        b.close();
      }
    } finally {
      a.cleanup();
    }
  });
});
