// One host process of engine-processes.test.ts: an LcmEngine on a shared PostgreSQL schema, driving
// shared conversations (the same transcripts every process sees) and one of its own, compacting often.
import type { Message } from "@context-engine/core";
import { LcmEngine } from "../../src/index.js";

const [url, schema, workerArg, sharedArg, turnsArg] = process.argv.slice(2);
const worker = Number(workerArg);
const shared = Number(sharedArg);
const turns = Number(turnsArg);

/** The transcript of a conversation after `t` turns (deterministic: every process sees the same one). */
export function transcript(name: string, t: number): Message[] {
  const out: Message[] = [{ role: "system", content: `conversation ${name}` }];
  for (let i = 0; i < t; i++) {
    out.push({ role: "user", content: `${name} question ${i}: ${"context words ".repeat(20)}` });
    out.push({ role: "assistant", content: `${name} answer ${i}: ${"result words ".repeat(20)}` });
  }
  return out;
}

const engine = new LcmEngine({ contextLength: 2_000, config: { store: url, schema, pool_size: 3, fresh_tail_count: 4, leaf_min_messages: 2 } });
await engine.openStore();
for (let t = 1; t <= turns; t++) {
  const names = [...Array.from({ length: shared }, (_, s) => `shared-${s}`), `own-${worker}`];
  for (const name of names) {
    const list = transcript(name, t);
    await engine.onTurnComplete(list, null, { sessionId: name });
    if (t % 3 === worker % 3) await engine.compress(list, { sessionId: name });
  }
}
for (const name of [...Array.from({ length: shared }, (_, s) => `shared-${s}`), `own-${worker}`]) await engine.whenIdle(name);
await engine.close();
process.stdout.write(`worker ${worker} done\n`);
