import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportConversation, openLcmStore } from "@context-engine/lcm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { runBin, sandbox } from "./helpers/run-bin.js";

const POSTGRES_URL = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    console.warn(`[cli] PostgreSQL lcm tests SKIPPED: no server at ${POSTGRES_URL}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
const reachable = await postgresReachable();

/** A store with one small conversation, and its export file. */
async function seeded(s: ReturnType<typeof sandbox>) {
  const from = join(s.cwd, "a.sqlite");
  const seed = openLcmStore({ path: from });
  const conv = seed.conversation("s1");
  seed.ingest(conv.id, [
    { role: "user", content: "hello" },
    { role: "assistant", content: "hi" },
  ]);
  const doc = (await exportConversation(seed, "s1"))!;
  seed.close();
  writeFileSync(join(s.cwd, "s1.json"), JSON.stringify(doc));
  return { from, doc };
}

describe("context-engine lcm export|import (built binary)", () => {
  it("moves a conversation to another store losslessly and refuses to overwrite one", async () => {
    const s = sandbox();
    const from = join(s.cwd, "a.sqlite");
    const seed = openLcmStore({ path: from });
    const conv = seed.conversation("s1");
    seed.ingest(conv.id, [
      { role: "system", content: "sys" },
      { role: "user", content: "hello" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "a.ts" },
    ]);
    const original = await exportConversation(seed, "s1");
    seed.close();

    const out = await runBin(["lcm", "export", "--session", "s1", "--store", from, "--out", "s1.json"], s);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain("exported 4 messages and 0 summaries of s1");
    expect(JSON.parse(readFileSync(join(s.cwd, "s1.json"), "utf8"))).toEqual(original);

    const imported = await runBin(["lcm", "import", "s1.json", "--store", "b.sqlite"], s);
    expect(imported.code, imported.stderr).toBe(0);
    // the default store (where the chat keeps it), in a directory that does not exist yet
    const byDefault = await runBin(["lcm", "import", "s1.json"], s);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(existsSync(join(s.home, "data", "lcm", "lcm.sqlite"))).toBe(true);
    const copy = openLcmStore({ path: join(s.cwd, "b.sqlite") });
    expect(await exportConversation(copy, "s1")).toEqual(original);
    copy.close();

    const again = await runBin(["lcm", "import", "s1.json", "--store", "b.sqlite"], s);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('session "s1" already holds 4 messages');
    const missing = await runBin(["lcm", "export", "--session", "nope", "--store", from], s);
    expect(missing.code).toBe(4);
    const usage = await runBin(["lcm", "frobnicate"], s);
    expect(usage.code).toBe(2);
  });

  it("stops reading a device or an endless stream at the size bound, with a clear error", async () => {
    const s = sandbox();
    const dev = await runBin(["lcm", "import", "/dev/zero", "--store", "b.sqlite"], s);
    expect(dev.code).toBe(4);
    expect(dev.stderr).toContain("/dev/zero is a device, not an export file");
    // a FIFO fed without end: read up to the bound, then refused
    const fifo = join(s.cwd, "endless.fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = import("node:child_process").then(({ spawn }) => spawn("sh", ["-c", `yes '{"format":' > ${fifo}`], { stdio: "ignore" }));
    const endless = await runBin(["lcm", "import", "endless.fifo", "--store", "b.sqlite"], { ...s, timeoutMs: 120_000 });
    (await writer).kill();
    expect(endless.code).toBe(4);
    expect(endless.stderr).toMatch(/endless\.fifo goes on past \d+ bytes/);
    expect(existsSync(join(s.cwd, "b.sqlite"))).toBe(false);
  });

  it("refuses a store path that is not a database, leaving it as it was", async () => {
    const s = sandbox();
    await seeded(s);
    for (const [name, content] of [["notes.txt", "just some notes\n"], ["empty.db", ""]] as const) {
      writeFileSync(join(s.cwd, name), content);
      const before = readFileSync(join(s.cwd, name));
      for (const args of [["import", "s1.json"], ["export", "--session", "s1"]]) {
        const r = await runBin(["lcm", ...args, "--store", name], s);
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toContain(`${name} is not an SQLite database`);
      }
      expect(readFileSync(join(s.cwd, name))).toEqual(before);
    }
    mkdirSync(join(s.cwd, "adir"));
    expect((await runBin(["lcm", "import", "s1.json", "--store", "adir"], s)).stderr).toContain("adir is not an SQLite database");
    expect(readdirSync(join(s.cwd, "adir"))).toEqual([]);
  });

  it("creates nothing when exporting from a missing store or into a missing directory", async () => {
    const s = sandbox();
    await seeded(s);
    const before = readdirSync(s.cwd).sort();
    const missingStore = await runBin(["lcm", "export", "--session", "s1", "--store", "nope.sqlite", "--out", "x.json"], s);
    expect(missingStore.code).toBe(4);
    expect(missingStore.stderr).toContain("no LCM store at");
    const missingDir = await runBin(["lcm", "export", "--session", "s1", "--store", "a.sqlite", "--out", "no/such/dir/x.json"], s);
    expect(missingDir.code).toBe(4);
    expect(missingDir.stderr).toContain("does not exist; nothing was written");
    const unknownSession = await runBin(["lcm", "export", "--session", "zz", "--store", "a.sqlite", "--out", "x.json"], s);
    expect(unknownSession.code).toBe(4);
    expect(readdirSync(s.cwd).sort()).toEqual(before);
  });

  it("refuses an invalid document before creating the store, naming the field", async () => {
    const s = sandbox();
    const { doc } = await seeded(s);
    writeFileSync(join(s.cwd, "bad.json"), JSON.stringify({ ...doc, messages: [{ message: { role: "wizard", content: 1 }, createdAt: 0 }] }));
    const r = await runBin(["lcm", "import", "bad.json", "--store", "new.sqlite"], s);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("bad.json.messages.0.message.role");
    expect(existsSync(join(s.cwd, "new.sqlite"))).toBe(false);
  });

  it("validates the schema name: injected or mixed-case names are refused before connecting", async () => {
    const s = sandbox();
    await seeded(s);
    for (const schema of ["lcm; DROP SCHEMA public CASCADE", "MyLcm", 'x"y', "a".repeat(64), ""]) {
      const r = await runBin(["lcm", "import", "s1.json", "--store", "postgres://u:hunter2@127.0.0.1:1/db", "--schema", schema], s);
      expect(r.code, schema).toBe(2);
      expect(r.stderr).toContain("is not a lower-case identifier");
      expect(r.stdout + r.stderr).not.toContain("hunter2");
    }
    const sqlite = await runBin(["lcm", "import", "s1.json", "--store", "b.sqlite", "--schema", "lcm"], s);
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toContain("--schema applies to a postgres:// store only");
  });

  it("never prints the password of a postgres:// URL, whatever fails", async () => {
    const s = sandbox();
    await seeded(s);
    const secret = "s3cr%40t-pw";
    for (const args of [
      ["import", "s1.json", "--store", `postgres://user:${secret}@127.0.0.1:1/db`],
      ["export", "--session", "s1", "--store", `postgresql://user:${secret}@127.0.0.1:1/db`],
      ["export", "--session", "s1", "--store", `mysql://user:${secret}@127.0.0.1:1/db`],
    ]) {
      const r = await runBin(["lcm", ...args], s);
      expect(r.code, r.stderr).not.toBe(0);
      for (const leaked of [secret, "s3cr@t-pw"]) expect(r.stdout + r.stderr).not.toContain(leaked);
    }
  });

  it.skipIf(!reachable)("imports into and exports from PostgreSQL, showing the URL without its password", async () => {
    const s = sandbox();
    const { doc } = await seeded(s);
    const schema = `lcm_cli_${process.pid}_${Date.now().toString(36)}`;
    const url = new URL(POSTGRES_URL);
    url.password = url.password || "unused-pw";
    try {
      const imported = await runBin(["lcm", "import", "s1.json", "--store", url.href, "--schema", schema], s);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain("imported 2 messages");
      expect(imported.stdout + imported.stderr).not.toContain(url.password);
      const out = await runBin(["lcm", "export", "--session", "s1", "--store", url.href, "--schema", schema, "--out", "back.json"], s);
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(s.cwd, "back.json"), "utf8"))).toEqual(doc);
      expect(statSync(join(s.cwd, "back.json")).isFile()).toBe(true);
    } finally {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
