import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { adminClient, dropSchema, holdConversation, terminateSessions, uniqueAppName, waitForLockWait } from "./faults-support.js";
import { POSTGRES_URL, postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();

/** The worker process and a way to send it one command and read its one-line answer. */
function startWorker(schema: string, appName: string) {
  const script = fileURLToPath(new URL("./fault-worker.ts", import.meta.url));
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["--import", "tsx", script, POSTGRES_URL, schema, appName], { stdio: "pipe" });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += String(d)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the worker ended (exit ${await exited}): ${stderr.slice(-2000)}`);
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const send = (command: Record<string, unknown>) => child.stdin.write(`${JSON.stringify(command)}\n`);
  return { child, next, send, exited, stderr: () => stderr };
}

describe.skipIf(!reachable)("a process whose PostgreSQL sessions are ended from outside", () => {
  let admin: pg.Client | null = null;
  const schema = randomSchema();
  afterAll(async () => {
    if (!admin) return;
    await admin.query("ROLLBACK").catch(() => {});
    await dropSchema(admin, schema);
    await admin.end();
  });

  it("lives through pg_terminate_backend mid-ingest and mid-commit; each next call succeeds", { timeout: 60_000 }, async () => {
    admin = await adminClient();
    const appName = uniqueAppName();
    const worker = startWorker(schema, appName);
    try {
      const ready = await worker.next();
      const conversationId = Number(ready.conversationId);

      worker.send({ op: "ingest", turns: 1 });
      expect(await worker.next()).toEqual({ ok: true, appended: 2 });

      // Mid-ingest: the ingest waits inside its transaction for a row another session holds.
      let hold = await holdConversation(admin, schema, conversationId);
      worker.send({ op: "ingest", turns: 2 });
      await waitForLockWait(admin, appName);
      await terminateSessions(admin, appName);
      expect(await worker.next()).toMatchObject({ ok: false, kind: "connection" });
      await hold.release();
      worker.send({ op: "ingest", turns: 3 });
      expect(await worker.next()).toEqual({ ok: true, appended: 4 });

      // Mid-commit, the same way.
      hold = await holdConversation(admin, schema, conversationId);
      worker.send({ op: "commit" });
      await waitForLockWait(admin, appName);
      await terminateSessions(admin, appName);
      expect(await worker.next()).toMatchObject({ ok: false, kind: "connection" });
      await hold.release();
      worker.send({ op: "commit" });
      expect(await worker.next()).toEqual({ ok: true });

      // Every session ended while idle, then more work.
      await terminateSessions(admin, appName);
      worker.send({ op: "ingest", turns: 4 });
      const after = await worker.next();
      // The pool may hand out a session whose end it has not seen yet: that call fails cleanly, the next succeeds.
      if (after.ok === false) {
        expect(after.kind).toBe("connection");
        worker.send({ op: "ingest", turns: 4 });
        expect(await worker.next()).toEqual({ ok: true, appended: 2 });
      } else expect(after).toEqual({ ok: true, appended: 2 });
      worker.send({ op: "count" });
      expect(await worker.next()).toEqual({ ok: true, messages: 8, summaries: 1 });

      worker.send({ op: "exit" });
      worker.child.stdin.end();
      expect(await worker.next()).toEqual({ exiting: true });
      expect(await worker.exited).toBe(0);
      expect(worker.stderr()).not.toMatch(/Unhandled|Connection terminated/);
    } finally {
      worker.child.kill("SIGKILL");
    }
  });
});
