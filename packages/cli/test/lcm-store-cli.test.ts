import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { openLcmStore } from "@context-engine/lcm";
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

  it.skipIf(!pgReachable)("a missing database, a missing user name and a bad schema each say what is wrong", async () => {
    const s = sandbox();
    const cases: Array<[string[], number, RegExp]> = [
      [["--store", `postgres://postgres@${PG}/no_such_db_for_cli`], 3, /database "no_such_db_for_cli" does not exist[\s\S]*createdb/],
      [["--store", `postgres://${PG}/test`], 3, /refused the login[\s\S]*PGUSER/],
      [["--store", `postgres://postgres@${PG}/test`, "--schema", "Bad-Name"], 2, /schema[\s\S]*lower-case identifier/],
    ];
    for (const [args, code, message] of cases) {
      const out = await runBin(["lcm", "list", ...args], { ...s, env: { ...s.env, PGUSER: "" } });
      expect(out.code, out.stderr).toBe(code);
      expect(out.stderr).toMatch(message);
      expect(out.stderr).not.toContain("This is a bug");
    }
  });

  it("a missing pg package is named with the command that installs it", () => {
    const problem = storeProblem(new Error('the PostgreSQL LCM store needs the "pg" package (npm install pg): Cannot find package \'pg\''), "postgres://u@h/db");
    expect(problem?.message).toContain("needs the pg package");
    expect(problem?.hints.join(" ")).toContain("npm install pg");
  });
});
