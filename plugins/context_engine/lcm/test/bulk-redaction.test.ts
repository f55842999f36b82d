import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
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

describe("redaction of a bulk ingest", () => {
  it("a bulk ingest stores exactly what ingesting in small calls stores, every secret redacted", () => {
    const msgs = Array.from({ length: 70 }, (_, i) => varied(i)).flat(); // 420 messages: a bulk ingest (deferred indexing)
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
});
