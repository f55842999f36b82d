import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import { createRedactor } from "../src/redact/index.js";
import { SECRET_SCREEN } from "../src/redact/prescreen.js";
import { ScreenThread } from "../src/redact/screen-thread.js";
import type { Redactor } from "../src/redact/types.js";
import { encodeMessage } from "../src/store/codec.js";
import { ScreenBatch, ScreenedTexts, textsToScreen } from "../src/store/screen-batch.js";
import { asst, call, result, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

/** Every shape of text the encoder redacts: content, text parts, string and object arguments, extra fields. */
function varied(i: number): Message[] {
  const secret = i % 7 === 0 ? ` key ${KEY}${i}` : "";
  return [
    user(`question ${i} about the deploy token budget${secret}`),
    { ...call(`c${i}`, "run", { cmd: `curl -H 'Authorization: Bearer abcDEF123456ghiJKL${i}'` }), reasoning_content: `password=Tr0ub4dor${i}` } as Message,
    result(`c${i}`, `line one\nDATABASE_URL=postgres://app:s3cr3t-${i}@db/app\nplain output ${i}`),
    {
      role: "user",
      content: [
        { type: "text", text: `part ${i}${secret}` },
        { type: "image_url", image_url: { url: `https://x/${i}.png?token=${KEY}` } },
        { type: "text", text: "second part", cache: "api_key=zzzz9999" },
      ],
    } as Message,
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: `d${i}`, type: "function", function: { name: "put", arguments: { body: `secret: Qw3rty-${i}` } } }],
    } as unknown as Message,
    asst(`done ${i}`),
  ];
}

describe("redaction pre-screen on the screen thread", () => {
  it("a bulk ingest stores exactly what ingesting in small calls (screened inline) stores", () => {
    const msgs = Array.from({ length: 70 }, (_, i) => varied(i)).flat(); // 420 messages: one call uses the thread
    const bulk = tempStore();
    const small = tempStore();
    cleanups.push(bulk.cleanup, small.cleanup);
    const a = bulk.store.conversation("s");
    const b = small.store.conversation("s");
    const ra = bulk.store.ingest(a.id, msgs, { mode: "append" });
    const found: Record<string, number> = {};
    for (let i = 0; i < msgs.length; i += 60) {
      const r = small.store.ingest(b.id, msgs.slice(i, i + 60), { mode: "append" });
      for (const [k, n] of Object.entries(r.redactions)) found[k] = (found[k] ?? 0) + n;
    }
    expect(ra.appended).toBe(msgs.length);
    expect(ra.redactions).toEqual(found);
    expect(Object.keys(found).sort()).toEqual(["bearer_token", "openai_key", "password_assignment", "secret_assignment", "url_password"]);
    const rows = (store: typeof bulk.store, id: number) => store.getMessages(id).map((m) => ({ message: m.message, hash: m.hash, redacted: m.redacted }));
    expect(rows(bulk.store, a.id)).toEqual(rows(small.store, b.id));
    expect(JSON.stringify(rows(bulk.store, a.id))).not.toContain("Ab3dEf6hIj9k");
  });

  it("collects the texts the encoder redacts, in its order, and nothing it builds itself", () => {
    for (const m of varied(7)) {
      const collected: string[] = [];
      textsToScreen(m, collected);
      // Marked clean, every collected text must be consumed by the encoder, so the redactor never sees one.
      const seen: string[] = [];
      const base = createRedactor();
      const spy: Redactor = { enabled: true, redactText: (t) => (seen.push(t), base.redactText(t)) };
      const screened = new ScreenedTexts(collected, new Uint8Array(collected.length), 0, collected.length);
      encodeMessage(m, spy, screened);
      expect(seen.filter((t) => collected.includes(t))).toEqual([]);
      expect(screened.clean("anything else")).toBe(false);
    }
  });

  it("redacts as usual what the screen flagged, what is out of order, and everything when the thread is gone", () => {
    const texts = ["a harmless line", `key ${KEY}`];
    const st = new ScreenedTexts(texts, Uint8Array.from([0, 1]), 0, 2);
    expect(st.clean(texts[1]!)).toBe(false); // out of order: not consumed
    expect(st.clean(texts[0]!)).toBe(true);
    expect(st.clean(texts[1]!)).toBe(false); // flagged: redact it
    const gone = { submit: () => 1, take: () => null, broken: true } as unknown as ScreenThread;
    const batch = new ScreenBatch(gone, [user("x")], [0]);
    expect(batch.forMessage(0)).toBeNull();
  });

  it("answers batches by ticket on a real thread, dropping the answers of an abandoned batch", () => {
    const thread = ScreenThread.start(SECRET_SCREEN);
    expect(thread).not.toBeNull();
    try {
      const abandoned = thread!.submit([`key ${KEY}`, "plain words"]);
      const next = thread!.submit(["plain words", `key ${KEY}`, "the token budget"]);
      expect(abandoned).toBeLessThan(next);
      expect([...thread!.take(next)!]).toEqual([0, 1, 0]);
      expect(thread!.take(next + 1)).toBeNull(); // never submitted
      expect(thread!.broken).toBe(false);
    } finally {
      thread!.close();
    }
  });
});
