import { sqliteHandle } from "../../src/store/sqlite/store.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ftsExpression, parseQuery } from "../../src/search/query.js";
import { tempStore } from "../helpers.js";

describe("query parser", () => {
  it("drops question and stop words, ORs the rest", () => {
    const q = parseQuery("What did Caroline say about the adoption agency?");
    expect(q.raw).toEqual(["Caroline", "say", "adoption", "agency"]);
    expect(q.dropped).toEqual(["What", "did", "about", "the"]);
    expect(ftsExpression(q)).toBe('body:("Caroline" OR "say" OR "adoption" OR "agency")');
  });

  it("keeps stop words when nothing else remains, and quoted words always", () => {
    expect(parseQuery("the").raw).toEqual(["the"]);
    expect(parseQuery('"the who" concert').raw).toEqual(["the who", "concert"]);
  });

  it("honours upper-case AND / OR / NOT, -word and prefix*", () => {
    const q = parseQuery("deploy AND timeout OR retr* -flaky NOT staging");
    expect(q.groups).toEqual([['"deploy"', '"timeout"'], ['"retr"*']]);
    expect(q.excluded).toEqual(['"flaky"', '"staging"']);
    expect(ftsExpression(q)).toBe('body:(("deploy" AND "timeout") OR "retr"*) NOT body:("flaky" OR "staging")');
  });

  it("ignores dangling operators", () => {
    expect(ftsExpression(parseQuery("AND deploy OR"))).toBe('body:("deploy")');
    expect(ftsExpression(parseQuery("deploy AND AND timeout"))).toBe('body:(("deploy" AND "timeout"))');
  });

  it("turns any input into valid FTS5 syntax (property, against a real FTS5 table)", () => {
    const t = tempStore();
    try {
      const db = sqliteHandle(t.store);
      const words = fc.constantFrom("AND", "OR", "NOT", "-", "*", '"', "(", ")", "what", "the", "deploy", "src/a.ts", "x*", "-y", "NEAR", "body:", "^", "静默");
      const input = fc.oneof(fc.string({ maxLength: 40 }), fc.array(words, { maxLength: 8 }).map((ws) => ws.join(" ")));
      fc.assert(
        fc.property(input, (s) => {
          const q = parseQuery(s);
          if (q.terms.length === 0) return;
          expect(() => db.prepare("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?").get(ftsExpression(q))).not.toThrow();
          expect(q.terms).toHaveLength(q.raw.length);
        }),
        { numRuns: 300 },
      );
    } finally {
      t.cleanup();
    }
  });
});
