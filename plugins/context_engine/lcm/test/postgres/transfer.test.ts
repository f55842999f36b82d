import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { exportConversation, importConversation } from "../../src/transfer/index.js";
import { leaf } from "../store-contract/summaries.js";
import { asst, call, result, sys, tempStore, user } from "../helpers.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();
let cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A SQLite conversation with tool calls, a content-part message, two leaves under a condensed summary, and a frontier. */
async function source() {
  const t = tempStore();
  cleanups.push(t.cleanup);
  const store = t.store;
  const conv = store.conversation("agent-1");
  const msgs: Message[] = [
    sys("You are a coding agent."),
    user("read a.ts"),
    call("c1", "read_file", { path: "a.ts" }),
    result("c1", "export const a = 1;"),
    { role: "user", content: [{ type: "text", text: "and this" }, { type: "image_url", image_url: { url: "https://example.com/x.png" } }] } as Message,
    asst("done"),
    user("thanks"),
  ];
  const ids = store.ingest(conv.id, msgs, { timestamps: msgs.map((_, i) => 1_000 + i) }).ids as number[];
  const a = await leaf(store, conv.id, ids, 1, 2, "asked to read a.ts");
  const b = await leaf(store, conv.id, ids, 3, 4, "a.ts exports a = 1; an image followed");
  const run = store.getFrontier(conv.id).items.filter((i) => i.kind === "summary");
  const top = store.commitSummary(
    { conversationId: conv.id, kind: "condensed", depth: 1, content: "read a.ts: a = 1", tokens: 5, childSummaryIds: [a.id, b.id], level: "fallback", meta: { prompt: "lcm-v1" } },
    { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
  );
  if (!top.ok) throw new Error(top.detail);
  return { store, msgs };
}

async function roundTrip(target: LcmStoreDriver) {
  const { store, msgs } = await source();
  const exported = (await exportConversation(store, "agent-1"))!;
  expect(exported.messages.map((m) => m.message)).toEqual(msgs);
  expect(exported.summaries.map((s) => s.kind)).toEqual(["leaf", "leaf", "condensed"]);
  const report = await importConversation(target, JSON.parse(JSON.stringify(exported)));
  expect(report).toMatchObject({ messages: 7, summaries: 3 });
  // the same document back: messages, timestamps, summaries, lineage and the active context
  expect(await exportConversation(target, "agent-1")).toEqual(exported);
  const conv = (await target.findConversation("agent-1"))!;
  const top = (await target.listSummaries(conv.id, { depth: 1 }))[0]!;
  expect((await target.getMessagesByIds(await target.descendantMessageIds(top.id))).map((m) => m.message)).toEqual(msgs.slice(1, 5));
  await expect(importConversation(target, exported)).rejects.toThrow(/already holds 7 messages/);
  await expect(importConversation(target, { ...exported, frontier: [{ summary: 9 }] }, { as: "other" })).rejects.toThrow(/export.frontier.0.summary: summary 9 is not in this document/);
  await expect(importConversation(target, { format: "nope" })).rejects.toThrow(/invalid LCM conversation export: export.format/);
}

describe("lcm export / import", () => {
  it("round-trips a conversation losslessly between two SQLite stores", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    await roundTrip(t.store);
  });

  it.skipIf(!reachable)("round-trips a conversation losslessly from SQLite to PostgreSQL", async () => {
    const t = await testSchema(2);
    cleanups.push(t.drop);
    const pg = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 2 });
    cleanups.unshift(() => pg.close());
    await roundTrip(pg);
  });
});
