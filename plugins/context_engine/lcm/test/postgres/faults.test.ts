import type { Message } from "@context-engine/core";
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/open.js";
import { connectPostgres } from "../../src/store/postgres/connect.js";
import { PostgresStoreError } from "../../src/store/postgres/errors.js";
import { withConversationLock } from "../../src/store/postgres/locks.js";
import { adminClient, dropSchema, holdConversation, terminateSessions, uniqueAppName, waitForLockWait } from "./faults-support.js";
import { POSTGRES_URL, postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();

const turn = (i: number): Message[] => [
  { role: "user", content: `question ${i}` },
  { role: "assistant", content: `answer ${i}` },
];
const transcript = (turns: number): Message[] => Array.from({ length: turns }, (_, i) => turn(i)).flat();

type Store = Awaited<ReturnType<typeof openPostgresStore>>;

describe.skipIf(!reachable)("PostgreSQL store when the server ends its sessions or a writer stalls", { timeout: 60_000 }, () => {
  let admin: pg.Client;
  let schema: string;
  let appName: string;
  const opened: Array<{ close(): Promise<void> }> = [];

  const open = async (extra: { lockTimeoutMs?: number } = {}): Promise<Store> => {
    const store = await openPostgresStore({ url: POSTGRES_URL, schema, applicationName: appName, poolSize: 2, ...extra });
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    admin = await adminClient();
    schema = randomSchema();
    appName = uniqueAppName();
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => {});
    await admin.query("ROLLBACK").catch(() => {});
    await dropSchema(admin, schema);
    await admin.end();
  });

  it("an ingest whose session is ended mid-transaction fails with a clear error; the next ingest stores exactly once", async () => {
    const store = await open();
    const conv = await store.conversation("s");
    await store.ingest(conv.id, transcript(1));
    const hold = await holdConversation(admin, schema, conv.id);
    const inFlight = Promise.resolve(store.ingest(conv.id, transcript(2)));
    await waitForLockWait(admin, appName);
    expect(await terminateSessions(admin, appName)).toBeGreaterThan(0);
    const error = await inFlight.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as PostgresStoreError).kind).toBe("connection");
    expect((error as Error).message).toMatch(/PostgreSQL store \(postgres:\/\/postgres@127\.0\.0\.1:5432\/test, schema lcm_test_\w+\): the connection/);
    await hold.release();

    const again = await store.ingest(conv.id, transcript(3));
    expect(again.appended).toBe(4);
    expect((await store.getMessages(conv.id)).map((m) => m.message.content)).toEqual(transcript(3).map((m) => m.content));
  });

  it("a summary commit whose session is ended mid-transaction fails, writes nothing, and the next commit succeeds", async () => {
    const store = await open();
    const conv = await store.conversation("s");
    const { ids } = await store.ingest(conv.id, transcript(3));
    const summary = { conversationId: conv.id, kind: "leaf" as const, depth: 0, content: "the first two turns", tokens: 4, sourceMessageIds: ids.slice(0, 4) as number[] };
    const hold = await holdConversation(admin, schema, conv.id);
    const inFlight = Promise.resolve(store.commitSummary(summary));
    await waitForLockWait(admin, appName);
    await terminateSessions(admin, appName);
    await expect(inFlight).rejects.toMatchObject({ name: "PostgresStoreError", kind: "connection" });
    await hold.release();
    expect(await store.listSummaries(conv.id)).toHaveLength(0);

    const committed = await store.commitSummary(summary);
    expect(committed.ok).toBe(true);
    expect(await store.listSummaries(conv.id)).toHaveLength(1);
  });

  it("idle sessions ended between calls are replaced: every later call succeeds", async () => {
    const store = await open();
    const conv = await store.conversation("s");
    for (let i = 1; i <= 4; i++) {
      await store.ingest(conv.id, transcript(i));
      await terminateSessions(admin, appName);
      // Let the pool see the idle socket close before the next call.
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(await store.getMessages(conv.id)).toHaveLength(8);
  });

  it("sessions ended again and again during a run of ingests: each call succeeds or fails as a connection fault, and every message is stored once", async () => {
    const store = await open();
    const conv = await store.conversation("s");
    let storming = true;
    const storm = (async () => {
      while (storming) {
        await terminateSessions(admin, appName);
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    const kinds = new Set<string>();
    try {
      for (let i = 1; i <= 25; i++) {
        await Promise.resolve(store.ingest(conv.id, transcript(i))).catch((e: unknown) => {
          kinds.add(e instanceof PostgresStoreError ? e.kind : `not a store error: ${String(e)}`);
        });
      }
    } finally {
      storming = false;
      await storm;
    }
    expect([...kinds].filter((k) => k !== "connection")).toEqual([]);
    // Whatever failed (even a COMMIT whose answer was lost), the next ingest brings the store to the transcript exactly.
    await new Promise((r) => setTimeout(r, 30));
    const last = await Promise.resolve(store.ingest(conv.id, transcript(26))).catch(() => store.ingest(conv.id, transcript(26)));
    expect(last.appended).toBeGreaterThanOrEqual(2);
    const stored = await store.getMessages(conv.id);
    expect(stored.map((m) => m.message.content)).toEqual(transcript(26).map((m) => m.content));
    expect(stored.map((m) => m.seq)).toEqual(stored.map((_, i) => i));
  });

  it("a writer stalled inside an open transaction does not block another writer for ever: a clear lock_timeout error, then success", async () => {
    const store = await open({ lockTimeoutMs: 200 });
    const conv = await store.conversation("s");
    await store.ingest(conv.id, transcript(1));
    const hold = await holdConversation(admin, schema, conv.id);
    const error = await Promise.resolve(store.ingest(conv.id, transcript(2))).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ name: "PostgresStoreError", kind: "lock_timeout", code: "55P03" });
    expect((error as Error).message).toMatch(/waited longer than lock_timeout \(200 ms\)/);
    await hold.release();
    expect((await store.ingest(conv.id, transcript(2))).appended).toBe(2);
  });

  it("a session left idle inside a transaction is ended by the server, releasing its locks to other writers", async () => {
    const stalled = await connectPostgres({ url: POSTGRES_URL, schema, applicationName: appName, poolSize: 1, idleInTransactionTimeoutMs: 150 });
    opened.push(stalled);
    const store = await open();
    const conv = await store.conversation("s");
    // The stalled writer locks the conversation and then waits (as a process blocked mid-write would).
    const stall = stalled.transaction(async (c) => {
      await c.query("SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE", [conv.id]);
      await new Promise((r) => setTimeout(r, 600));
      await c.query("SELECT 1");
    });
    const stallError = stall.then(() => null, (e: unknown) => e);
    // Waits for the stalled lock only until the server ends that session.
    expect((await store.ingest(conv.id, transcript(1))).appended).toBe(2);
    expect(await stallError).toBeInstanceOf(PostgresStoreError);
    // The stalled writer's pool replaced its session.
    expect((await stalled.pool.query("SELECT 1 AS one")).rows[0].one).toBe(1);
  });

  it("a compaction lock whose session is ended is reported lost, and the lock can be taken again", async () => {
    const conn = await connectPostgres({ url: POSTGRES_URL, schema, applicationName: appName, poolSize: 2 });
    opened.push(conn);
    const outcome = await withConversationLock(conn, 7, async (lock) => {
      expect(await lock.stillHeld()).toBe(true);
      await terminateSessions(admin, appName);
      return lock.stillHeld();
    });
    expect(outcome).toEqual({ value: false });
    expect(await withConversationLock(conn, 7, async (lock) => lock.stillHeld())).toEqual({ value: true });
  });

  it("a statement past statement_timeout fails with a clear error and leaves the pool usable", async () => {
    const conn = await connectPostgres({ url: POSTGRES_URL, schema, applicationName: appName, poolSize: 1, statementTimeoutMs: 100 });
    opened.push(conn);
    await expect(conn.pool.query("SELECT pg_sleep(5)")).rejects.toMatchObject({ kind: "statement_timeout", code: "57014" });
    expect((await conn.pool.query("SELECT 2 AS two")).rows[0].two).toBe(2);
  });
});
