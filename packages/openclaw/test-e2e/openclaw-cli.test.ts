// The real OpenClaw (from npm, Node 24) as its users run it: the LCM plugin installed from the packed
// tarballs with OpenClaw's own CLI exactly as the README says, a loopback OpenAI-compatible model, two
// OpenClaw homes on one PostgreSQL schema. Short on purpose (two turns): the long scenario (gateway
// restarts, compaction on the window, crash recovery) is e2e/long-scenario.mjs, reported in the README.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM harness without declarations
import { dropSchema, makeHome, pgFrom, prepareInstall, startModel, storedRows, storedSessions } from "../e2e/harness.mjs";

const enabled = process.env.CONTEXT_ENGINE_OPENCLAW_E2E === "1" && Number(process.versions.node.split(".")[0]) >= 24;
const url = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/* eslint-disable @typescript-eslint/no-explicit-any */
describe.skipIf(!enabled)("the real OpenClaw, installed as the README says", () => {
  const work = mkdtempSync(join(tmpdir(), "oc-e2e-"));
  const schema = `oc_e2e_${randomBytes(5).toString("hex")}`;
  const session = `e2e-${randomBytes(4).toString("hex")}`;
  const fact = `fact-harbour-${randomBytes(3).toString("hex")}`;
  let model: any;
  let homeA: any;
  let homeB: any;
  let pg: any;

  beforeAll(async () => {
    const install = await prepareInstall(work);
    model = await startModel(work);
    const pluginConfig = { store: url, schema };
    homeA = await makeHome(install, join(work, "home-a"), { port: model.port, pluginConfig });
    homeB = await makeHome(install, join(work, "home-b"), { port: model.port, pluginConfig });
    pg = pgFrom(homeA);
  });

  afterAll(async () => {
    model?.stop();
    if (pg) await dropSchema(pg, url, schema).catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it("installs with the README's command: dependencies resolved, pg beside the plugin", () => {
    expect(readme).toMatch(/openclaw plugins install \.\/context-engine-openclaw-lcm-<version>\.tgz --force --accept-capabilities/);
    // OpenClaw ran npm install for the plugin's dependencies (it does so for an archive, not for a directory).
    for (const dep of ["better-sqlite3", "re2js", "pg"]) expect(existsSync(join(homeA.pluginDir, "node_modules", dep, "package.json")), dep).toBe(true);
    expect(existsSync(join(homeA.pluginDir, "node_modules", "@context-engine"))).toBe(false);
    expect(homeA.config.plugins.slots.contextEngine).toBe("context-engine-lcm");
    expect(typeof pg.Client).toBe("function");
  });

  it("turns store every message once, and a second home continuing the session assembles the stored history", async () => {
    const first = await homeA.turn(session, `Please remember ${fact}.`);
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    const before = model.requests().length;
    // Home B has never seen this session: its own transcript is empty.
    const third = await homeB.turn(session, "Which facts do you remember?");
    expect(third.code, third.stderr.slice(-2000)).toBe(0);
    const requests = model.requests().slice(before);
    const fromB = JSON.stringify(requests.filter((r: any) => JSON.stringify(r.body.messages).includes("Which facts do you remember?")));
    expect(fromB).toContain(fact);
    // The loopback model names the facts it saw: the answer shows it too.
    expect(third.stdout).toContain(fact);

    const rows = await storedRows(pg, url, schema, session);
    const users = rows.filter((r: any) => r.role === "user").map((r: any) => JSON.stringify(r.message.content));
    for (const said of [fact, "Which facts do you remember?"]) {
      expect(users.filter((u: string) => u.includes(said)), `"${said}" stored once`).toHaveLength(1);
    }
    expect(rows.filter((r: any) => r.role === "assistant").length).toBeGreaterThanOrEqual(2);
    // OpenClaw's own runs (memory flush and the like) are not stored as conversations.
    expect((await storedSessions(pg, url, schema)).filter((s: string) => s.startsWith("internal-session-effects"))).toEqual([]);
  });
});
