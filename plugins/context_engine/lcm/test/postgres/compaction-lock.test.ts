import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { POSTGRES_URL, postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Two store handles on one fresh schema, as two processes sharing a database would have. */
async function twoHandles() {
  const schema = randomSchema();
  const a = await PostgresLcmStore.open({ url: POSTGRES_URL, schema, poolSize: 3 });
  const b = await PostgresLcmStore.open({ url: POSTGRES_URL, schema, poolSize: 3 });
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  cleanup.push(async () => {
    await a.close();
    await b.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  return { schema, a, b, admin };
}

/** A promise with its resolver, to hold a lock until the test lets go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe.skipIf(!reachable)("PostgreSQL: withCompactionLock", () => {
  it("gives a second holder null without waiting, and the lock to the next pass once released", async () => {
    const { a, b } = await twoHandles();
    const conv = await a.conversation("s");
    const release = gate();
    const entered = gate();
    const first = a.withCompactionLock(conv.id, async (lock) => {
      entered.open();
      await release.opened;
      return lock.stillHeld();
    });
    await entered.opened;
    // The first pass is still inside (its gate is closed): the second answers null instead of queueing behind it.
    expect(await b.withCompactionLock(conv.id, async () => "second")).toBeNull();
    expect(await a.withCompactionLock(conv.id, async () => "same handle")).toBeNull();
    // Another conversation is not blocked.
    const other = await b.conversation("t");
    expect(await b.withCompactionLock(other.id, async () => "other")).toEqual({ value: "other" });
    release.open();
    expect(await first).toEqual({ value: true });
    expect(await b.withCompactionLock(conv.id, async () => "next")).toEqual({ value: "next" });
  });

  it("releases the lock when the pass throws", async () => {
    const { a, b } = await twoHandles();
    const conv = await a.conversation("s");
    await expect(a.withCompactionLock(conv.id, async () => Promise.reject(new Error("summariser down")))).rejects.toThrow("summariser down");
    expect(await b.withCompactionLock(conv.id, async () => "after")).toEqual({ value: "after" });
  });

  it("answers stillHeld() false once the lock's backend is terminated, and frees the lock for others", async () => {
    const { schema, a, b, admin } = await twoHandles();
    const conv = await a.conversation("s");
    const result = await a.withCompactionLock(conv.id, async (lock) => {
      const before = await lock.stillHeld();
      const holder = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = hashtext($1)::oid AND objid = $2::int::oid
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [`lcm:compact:${schema}`, conv.id],
      );
      expect(holder.rows).toHaveLength(1);
      await admin.query("SELECT pg_terminate_backend($1)", [holder.rows[0]!.pid]);
      // Once the server has let go, another holder gets the lock while this pass is still running.
      let other = null;
      for (let i = 0; i < 50 && other === null; i++) {
        other = await b.withCompactionLock(conv.id, async () => "taken over");
        if (other === null) await new Promise((r) => setTimeout(r, 20));
      }
      return { before, after: await lock.stillHeld(), other };
    });
    expect(result).toEqual({ value: { before: true, after: false, other: { value: "taken over" } } });
    // The dead connection went back to nobody: the store keeps working on fresh ones.
    expect(await a.withCompactionLock(conv.id, async () => "again")).toEqual({ value: "again" });
    expect((await a.getConversation(conv.id))!.id).toBe(conv.id);
  });
});
