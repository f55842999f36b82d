import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { openLcmStore } from "../../src/store/index.js";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { storeScope, type StoreContractOptions } from "./factory.js";

/**
 * Words whose stop-word, stemming, accent or tokenising treatment differed
 * between FTS5 and PostgreSQL's english configuration, and their neighbours.
 */
const VOCABULARY = [
  "between", "once", "does", "do", "café", "cafe", "CAFÉ", "résumé", "resume", "resumes", "docs", "doc", "server", "servers",
  "serving", "served", "connection", "connected", "connecting", "is", "as", "us", "I", "a", "the", "it's", "possibly",
  "possible", "morphology", "biology", "generously", "naïve", "naive", "über", "e-mail", "email", "docs.example.com",
  "src/server.ts", "MAX_RETRY_COUNT", "v1.2.3", "3.14", "x86_64", "well-known", "ran", "running", "happily", "relational",
  "ÉTÉ", "Straße", "静默模式", "payments", "payment", "timeout", "timing", "agreed", "oxen", "cats", "caresses", "ponies",
];
const SEPARATORS = [" ", " ", " ", ", ", "-", ".", "/", "_", "\n", " (", ") ", ": "];

const word = fc.constantFrom(...VOCABULARY);
const text = fc.array(fc.tuple(word, fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 8 }).map((ws) => ws.map(([w, s]) => w + s).join(""));
/** Plain queries an agent types: a word, two words, a phrase, a prefix, an exclusion, AND. */
const query = fc.oneof(
  word,
  fc.tuple(word, word).map(([a, b]) => `${a} ${b}`),
  fc.tuple(word, word).map(([a, b]) => `"${a} ${b}"`),
  word.filter((w) => w.length >= 3).map((w) => `${w.slice(0, Math.max(2, w.length - 2))}*`),
  fc.tuple(word, word).map(([a, b]) => `${a} -${b}`),
  fc.tuple(word, word).map(([a, b]) => `${a} AND ${b}`),
);

/** Seqs of the matching messages, or (scope "summaries") positions of the matching summaries in `summaryIds`. */
async function matches(store: LcmStoreDriver, conversationId: number, q: string, summaryIds?: string[]): Promise<number[] | string> {
  try {
    const scope = summaryIds ? "summaries" : "messages";
    const r = await searchHistory(store, { query: q, conversationId, scope, limit: 100, sort: "recency" });
    return r.hits.map((h) => (summaryIds ? summaryIds.indexOf(h.summaryId!) : h.seq!)).sort((a, b) => a - b);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** The same plain query finds the same messages here as on SQLite (FTS5), over generated corpora. */
export function searchParityContract(options: StoreContractOptions): void {
  describe("search parity with SQLite", () => {
    const scope = storeScope(options);
    const dirs: string[] = [];
    afterEach(async () => {
      await scope.disposeAll();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    it("stop words, stemming, accents and punctuation answer alike in messages and summaries (generated corpus and queries)", async () => {
      const store = await scope.open({ redaction: false });
      const dir = mkdtempSync(join(tmpdir(), "lcm-parity-"));
      dirs.push(dir);
      const reference = openLcmStore({ dataDir: dir, redaction: false });
      try {
        let round = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 20 }), fc.array(query, { minLength: 1, maxLength: 8 }), async (texts, queries) => {
            const session = `parity-${round++}`;
            const messages: Message[] = texts.map((content) => ({ role: "user", content }));
            const a = await store.conversation(session);
            await store.ingest(a.id, messages, { mode: "append", index: "now" });
            const b = reference.conversation(session);
            reference.ingest(b.id, messages, { mode: "append", index: "now" });
            for (const q of queries) expect(await matches(store, a.id, q), `query ${JSON.stringify(q)} over ${JSON.stringify(texts)}`).toEqual(await matches(reference, b.id, q));
            // summaries: one leaf per message, its text reversed word by word, searched alone
            const ids = { store: [] as string[], reference: [] as string[] };
            const storeMessages = await store.getMessages(a.id);
            const referenceMessages = reference.getMessages(b.id);
            for (const [i, t] of texts.entries()) {
              const content = t.split(" ").reverse().join(" ") || "empty";
              const leafOf = (conversationId: number, messageId: number) => ({ conversationId, kind: "leaf" as const, depth: 0, content, tokens: 1, sourceMessageIds: [messageId] });
              const x = await store.commitSummary(leafOf(a.id, storeMessages[i]!.id));
              const y = reference.commitSummary(leafOf(b.id, referenceMessages[i]!.id));
              if (!x.ok || !y.ok) throw new Error("summary refused");
              ids.store.push(x.summary.id);
              ids.reference.push(y.summary.id);
            }
            for (const q of queries) {
              expect(await matches(store, a.id, q, ids.store), `summaries: query ${JSON.stringify(q)}`).toEqual(await matches(reference, b.id, q, ids.reference));
            }
          }),
          { numRuns: 40 },
        );
      } finally {
        reference.close();
      }
    });

    it("the words that used to differ find the same messages", async () => {
      const store = await scope.open({ redaction: false });
      const conv = await store.conversation("known");
      const texts = ["meet between the two", "once more", "what does it do", "the Café opened", "my résumé", "read the docs", "the server crashed", "I possibly can"];
      await store.ingest(conv.id, texts.map((content) => ({ role: "user", content }) as Message));
      const expected: Array<[string, number[]]> = [
        ["between", [0]], ["once", [1]], ["does", [2]], ["cafe", [3]], ["CAFÉ", [3]], ["resume", [4]], ["résumés", [4]],
        ["doc", [5]], ["server", [6]], ["servers", [6]], ["possible", [7]], ["caf*", [3]],
        // an excluded CJK word keeps the query on the full-text index (found by the generated parity test)
        ["between -静默模式", [0]],
      ];
      for (const [q, seqs] of expected) expect(await matches(store, conv.id, q), q).toEqual(seqs);
    });
  });
}
