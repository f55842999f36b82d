import { ContextEngine } from "@context-engine/core";
import type { Logger, Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine } from "../src/index.js";
import { TailEngine } from "./engines.js";
import { transcript, user } from "./fixtures.js";

const base = { sessionId: "s1", sessionKey: "agent:main:s1" };

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (m: string) => void lines.push(m);
  return { lines, debug: log, info: log, warn: log, error: log };
}

/** Values a hostile engine hands back. */
const hostile: Array<[string, () => unknown]> = [
  [
    "a message whose getter throws",
    () => {
      const message = { role: "user" };
      Object.defineProperty(message, "content", { enumerable: true, get: () => { throw new Error("getter trap"); } });
      return [message];
    },
  ],
  ["a Proxy whose traps throw", () => new Proxy([{ role: "user", content: "hi" }], { get: () => { throw new Error("proxy trap"); }, ownKeys: () => { throw new Error("proxy trap"); } })],
  [
    "a cyclic message",
    () => {
      const message: Record<string, unknown> = { role: "user", content: "loop" };
      message.self = message;
      return [message];
    },
  ],
];

class HostileEngine extends ContextEngine {
  constructor(readonly value: () => unknown) {
    super();
  }
  get name() {
    return "hostile";
  }
  updateFromResponse() {}
  shouldCompress() {
    return true;
  }
  compress() {
    return this.value() as Message[];
  }
  override selectContext() {
    return this.value() as Message[];
  }
}

describe("hostile engines inside the OpenClaw adapter", () => {
  it.each(hostile)("compress and selectContext returning %s: OpenClaw keeps its own messages, nothing throws", async (_label, value) => {
    const logger = recordingLogger();
    const oc = createOpenClawContextEngine({ id: "hostile", factory: () => new HostileEngine(value), logger });
    const messages = transcript(3);
    const out = await oc.assemble({ ...base, messages, tokenBudget: 100_000 });
    expect(out.messages).toBe(messages);
    expect(logger.lines.some((l) => l.includes("compress result rejected") || l.includes("compress threw"))).toBe(true);
    // OpenClaw's own compaction (preflight) is skipped, never failed: a failure would wedge every later turn.
    const automatic = await oc.compact({ ...base, force: true });
    expect(automatic).toMatchObject({ ok: true, compacted: false });
    expect(logger.lines.some((l) => l.includes("compaction failed, the conversation is kept as it is"))).toBe(true);
    // A user's own compaction gets the failure as its answer.
    const manual = await oc.compact({ ...base, force: true, runtimeContext: { forceReason: "manual" } });
    expect(manual.ok).toBe(false);
  });

  it("a factory that throws leaves an inert engine and a logged error", async () => {
    const logger = recordingLogger();
    const oc = createOpenClawContextEngine({ id: "broken", factory: () => { throw new Error("cannot open the store"); }, logger });
    const messages = transcript(2);
    const out = await oc.assemble({ ...base, messages, tokenBudget: 100_000 });
    expect(out.messages).toBe(messages);
    expect(logger.lines.some((l) => l.includes("engine factory failed") && l.includes("cannot open the store"))).toBe(true);
  });

  it("an engine that edits its input and then throws changes nothing the adapter keeps", async () => {
    const engine = new (class extends TailEngine {
      calls = 0;
      override compress(messages: Message[]): Message[] {
        if (++this.calls === 1) return super.compress(messages);
        for (const m of messages) m.content = "HACKED";
        messages.splice(0, messages.length);
        throw new Error("edited, then failed");
      }
    })(4);
    const oc = createOpenClawContextEngine({ id: "editor", factory: () => engine });
    const first = transcript(4);
    await oc.assemble({ ...base, messages: first });
    const second = [...first, user("next question", 99)];
    const failed = await oc.assemble({ ...base, messages: second });
    engine.always = false;
    const third = await oc.assemble({ ...base, messages: [...second, user("and then?", 100)] });
    for (const out of [failed, third]) {
      expect(JSON.stringify(out)).not.toContain("HACKED");
      expect(out.messages.at(-1)).toMatchObject({ role: "user" });
    }
    expect(JSON.stringify(third.messages)).toContain("next question");
  });

  it("dispose with 20 hung sessions bounds each session at once, not one after another", async () => {
    let started = 0;
    const oc = createOpenClawContextEngine({
      id: "hung",
      stepTimeoutMs: 300,
      factory: () =>
        new (class extends TailEngine {
          override onSessionEnd(): Promise<void> {
            started++;
            return new Promise(() => {});
          }
        })(4, false),
    });
    for (let i = 0; i < 20; i++) await oc.assemble({ sessionId: `s${i}`, sessionKey: `agent:main:s${i}`, messages: transcript(1) });
    const disposed = oc.dispose!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(20);
    await disposed;
  });
});
