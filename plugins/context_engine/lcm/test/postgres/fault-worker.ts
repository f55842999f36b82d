// A host process whose store sessions the test ends from outside (faults-process.test.ts). It reads one
// command per stdin line, answers one JSON line per command, and must outlive every fault.
import { createInterface } from "node:readline";
import type { Message } from "@context-engine/core";
import { openPostgresStore } from "../../src/store/open.js";

const [url, schema, applicationName] = process.argv.slice(2);
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
const transcript = (turns: number): Message[] =>
  Array.from({ length: turns }, (_, i): Message[] => [
    { role: "user", content: `question ${i}` },
    { role: "assistant", content: `answer ${i}` },
  ]).flat();

const store = await openPostgresStore({ url: url!, schema: schema!, applicationName: applicationName!, poolSize: 2 });
const conv = await store.conversation("worker");
say({ ready: true, conversationId: conv.id });

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { op: "ingest"; turns: number } | { op: "commit" } | { op: "count" } | { op: "exit" };
  if (command.op === "exit") break;
  try {
    if (command.op === "ingest") {
      say({ ok: true, appended: (await store.ingest(conv.id, transcript(command.turns))).appended });
    } else if (command.op === "commit") {
      const ids = (await store.getMessages(conv.id, { limit: 4 })).map((m) => m.id);
      const result = await store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: "the first turns", tokens: 3, sourceMessageIds: ids });
      say({ ok: result.ok });
    } else {
      say({ ok: true, messages: (await store.getMessages(conv.id)).length, summaries: (await store.listSummaries(conv.id)).length });
    }
  } catch (error) {
    say({ ok: false, kind: (error as { kind?: string }).kind ?? null, message: error instanceof Error ? error.message : String(error) });
  }
}
await store.close();
say({ exiting: true });
