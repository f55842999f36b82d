import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import { openLcmStore } from "@context-engine/lcm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { storeProblem } from "../src/lcm/store-errors.js";
import { runBin, sandbox } from "./helpers/run-bin.js";

const PG = "127.0.0.1:5432";
const pgReachable = await new Promise<boolean>((done) => {
  const socket = connect(5432, "127.0.0.1");
  socket.once("connect", () => (socket.destroy(), done(true)));
  socket.once("error", () => done(false));
});
if (!pgReachable) console.warn(`[cli] PostgreSQL store-error tests SKIPPED: nothing listens on ${PG}`);

async function withPg<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `postgres://postgres@${PG}/test` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
const schemaExists = (schema: string) => withPg(async (c) => (await c.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rows.length > 0);
const dropSchema = (schema: string) => withPg((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));

function seed(path: string, sessions: Record<string, string>): void {
  const store = openLcmStore({ path });
  for (const [id, request] of Object.entries(sessions)) {
    const conv = store.conversation(id);
    store.ingest(conv.id, [
      { role: "user", content: request },
      { role: "assistant", content: "ok" },
    ]);
  }
  store.close();
}

describe("lcm stores: which one, and what is wrong with it (built binary)", () => {
  it("a URL that is not postgres:// is refused, and nothing is created in the working directory", async () => {
    const s = sandbox();
    for (const sub of [["import", "x.json"], ["export", "--session", "a"], ["list"]]) {
      const out = await runBin(["lcm", ...sub, "--store", "mysql://root:hunter2@db/x"], s);
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toContain("mysql://root@db/x is not a supported LCM store");
      expect(out.stderr).not.toContain("hunter2");
      expect(out.stderr).not.toContain("This is a bug");
    }
    expect(readdirSync(s.cwd)).toEqual([]);
  });

  it("the default store is $CONTEXT_ENGINE_HOME/data/lcm/lcm.sqlite; a missing one is an error that leaves nothing behind", async () => {
    const s = sandbox();
    const out = await runBin(["lcm", "export", "--session", "a", "--out", "a.json"], s);
    expect(out.code).toBe(4);
    expect(out.stderr).toContain(`no LCM store at ${join(s.home, "data", "lcm", "lcm.sqlite")}`);
    expect(existsSync(join(s.home, "data"))).toBe(false);
    expect(readdirSync(s.cwd)).toEqual([]);
  });

  it("lcm list shows id, last use, size and first request; export takes a unique prefix and refuses an ambiguous one", async () => {
    const s = sandbox();
    mkdirSync(join(s.home, "data", "lcm"), { recursive: true });
    seed(join(s.home, "data", "lcm", "lcm.sqlite"), { "9d9a-one": "Plan the trip to Lisbon", "9d9b-two": "Fix the failing build", "c01-three": "Hello" });
    const list = await runBin(["lcm", "list"], { ...s, env: { ...s.env, COLUMNS: "100" } });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("3 conversation(s)");
    expect(list.stdout).toMatch(/9d9a-one\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+2\s+\d+ B\s+Plan the trip to Lisbon/);
    for (const line of list.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
    const json = JSON.parse((await runBin(["lcm", "list", "--json"], s)).stdout);
    expect(json.conversations.map((c: { id: string }) => c.id).sort()).toEqual(["9d9a-one", "9d9b-two", "c01-three"]);

    const one = await runBin(["lcm", "export", "--session", "c0"], s);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain("of c01-three");
    const ambiguous = await runBin(["lcm", "export", "--session", "9d9", "--out", "x.json"], s);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('"9d9" matches 2 conversations');
    expect(ambiguous.stderr).toMatch(/Candidates: 9d9[ab]-\w+, 9d9[ab]-\w+/);
    expect(existsSync(join(s.cwd, "x.json"))).toBe(false);
  });

  it("a refused connection is a store problem with what to do, not a bug", async () => {
    const s = sandbox();
    const out = await runBin(["lcm", "list", "--store", "postgres://me:secret@127.0.0.1:1/db"], s);
    expect(out.code).toBe(3);
    expect(out.stderr).toContain("cannot connect to PostgreSQL: the connection was refused (postgres://me@127.0.0.1:1/db)");
    expect(out.stderr).not.toContain("secret");
    expect(out.stderr).not.toContain("This is a bug");
  });

  it.skipIf(!pgReachable)("a missing database and a bad schema each say what is wrong", async () => {
    const s = sandbox();
    const cases: Array<[string[], number, RegExp]> = [
      [["--store", `postgres://postgres@${PG}/no_such_db_for_cli`], 3, /database "no_such_db_for_cli" does not exist[\s\S]*createdb/],
      [["--store", `postgres://postgres@${PG}/test`, "--schema", "Bad-Name"], 2, /schema[\s\S]*lower-case identifier/],
    ];
    for (const [args, code, message] of cases) {
      const out = await runBin(["lcm", "list", ...args], { ...s, env: { ...s.env, PGUSER: "" } });
      expect(out.code, out.stderr).toBe(code);
      expect(out.stderr).toMatch(message);
      expect(out.stderr).not.toContain("This is a bug");
    }
  });

  it.skipIf(!pgReachable)("a URL without a user name connects as the operating-system user when USER is unset, as psql does", async () => {
    const s = sandbox();
    const schema = `cli_nouser_${process.pid}_${Date.now().toString(36)}`;
    const out = await runBin(["lcm", "list", "--store", `postgres://${PG}/test`, "--schema", schema], { ...s, env: { ...s.env, USER: "", PGUSER: "" } });
    expect(out.stderr).not.toMatch(/no PostgreSQL user name/);
    const me = userInfo().username;
    // Connected as the OS user (and found nothing there), or the server names that user's missing role.
    if (out.code === 3) expect(out.stderr).toContain(`role "${me}" does not exist`);
    else {
      expect(out.code, out.stderr).toBe(4);
      expect(out.stderr).toContain(`No LCM store in schema "${schema}"`);
    }
    expect(await schemaExists(schema)).toBe(false);
  });

  it.skipIf(!pgReachable)("lcm list and export read config.yaml's PostgreSQL schema, and a read never creates a schema", async () => {
    const s = sandbox();
    const schema = `cli_cfg_${process.pid}_${Date.now().toString(36)}`;
    const missing = `${schema}_none`;
    const url = `postgres://postgres@${PG}/test`;
    try {
      // Seed the schema through the CLI itself: a SQLite store exported and imported into PostgreSQL.
      const file = join(s.cwd, "seed.sqlite");
      seed(file, { "cfg-session-1": "where do the deploy keys rotate?" });
      expect((await runBin(["lcm", "export", "--store", file, "--session", "cfg-session-1", "--out", "seed.json"], s)).code).toBe(0);
      const imported = await runBin(["lcm", "import", "seed.json", "--store", url, "--schema", schema], s);
      expect(imported.code, imported.stderr).toBe(0);

      writeFileSync(join(s.cwd, "config.yaml"), `engines:\n  lcm:\n    store: ${url}\n    schema: ${schema}\n`);
      const list = await runBin(["lcm", "list"], s);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain("cfg-session-1");
      expect(list.stdout).toContain(`schema ${schema}`);
      const exported = await runBin(["lcm", "export", "--session", "cfg-session-1"], s);
      expect(exported.code, exported.stderr).toBe(0);
      expect(JSON.parse(exported.stdout).messages).toHaveLength(2);

      writeFileSync(join(s.cwd, "config.yaml"), `engines:\n  lcm:\n    store: ${url}\n    schema: ${missing}\n`);
      for (const sub of [["list"], ["export", "--session", "cfg-session-1"]]) {
        const out = await runBin(["lcm", ...sub], s);
        expect(out.code, out.stderr).toBe(4);
        expect(out.stderr).toContain(`No LCM store in schema "${missing}"`);
        expect(out.stderr).toContain("nothing was created");
      }
      expect(await schemaExists(missing)).toBe(false);
    } finally {
      await dropSchema(schema);
    }
  }, 120_000);

  it("a missing pg package is named with the command that installs it", () => {
    const problem = storeProblem(new Error('the PostgreSQL LCM store needs the "pg" package (npm install pg): Cannot find package \'pg\''), "postgres://u@h/db");
    expect(problem?.message).toContain("needs the pg package");
    expect(problem?.hints.join(" ")).toContain("npm install pg");
  });
});
