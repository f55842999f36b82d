import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { agentConversation } from "./engine-helpers.js";
import { makeEngine } from "./engine-setup.js";

// Two writers on one conversation (README, "Every message once"): a host whose onTurnComplete runs after its
// answer (AgentHost defers it) and another writer that continued from the host's list before that hook ran.
// Found by the bench, whose engine suite took over the host's list without waiting for the host's hook.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const text = (m: Message) => `${m.role}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`;

describe("a host's named turn that arrives after another writer stored the same messages", () => {
  it("is stored once", async () => {
    const made = makeEngine({});
    cleanups.push(made.cleanup);
    const engine = made.engine;
    // The host's turns end alike ("Done: ..."), as a model's short confirmations do.
    const ask = (n: number): Message[] => [{ role: "user", content: `Question ${n}: what changed in src/api since the last release?` }, { role: "assistant", content: "Done: the change is in place and the tests pass." }];
    const history = [...agentConversation(6, 21), ...ask(20), ...ask(21)];
    const q = ask(22);
    await engine.onTurnComplete(history, null, { sessionId: "s", turnId: "h0", turnMessages: history.slice(-2) });
    const hostList = [...history, ...q];
    const next = agentConversation(7, 22).slice(-4);
    // The other writer continues from the host's list before the host's own (deferred) hook for that turn ran.
    await engine.onTurnComplete([...hostList, ...next], null, { sessionId: "s", turnId: "t1", turnMessages: next });
    await engine.onTurnComplete(hostList, null, { sessionId: "s", turnId: "h1", turnMessages: q });
    await engine.whenIdle("s");
    const conv = (await engine.store.findConversation("s"))!;
    const stored = (await engine.store.getMessages(conv.id)).map((m) => text(m.message));
    expect(stored).toEqual([...history.slice(1), ...q, ...next].map(text));
  });
});
