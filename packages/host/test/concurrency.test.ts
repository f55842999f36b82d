import type { CompressOptions, Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { RecordingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

/** An engine that tracks how many compress passes overlap, overall and per session. */
class OverlapEngine extends RecordingEngine {
  inFlight = 0;
  maxInFlight = 0;
  perSession = new Map<string, number>();
  maxPerSession = 0;
  seen: Array<{ sessionId: string; firstContent: string }> = [];

  override async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    const id = options?.sessionId ?? "?";
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.perSession.set(id, (this.perSession.get(id) ?? 0) + 1);
    this.maxPerSession = Math.max(this.maxPerSession, this.perSession.get(id)!);
    this.seen.push({ sessionId: id, firstContent: String(messages[0]?.content) });
    try {
      await new Promise((r) => setTimeout(r, 80));
      return await super.compress(messages, options);
    } finally {
      this.inFlight--;
      this.perSession.set(id, this.perSession.get(id)! - 1);
    }
  }
}

function history(tag: string): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 5; i++) {
    out.push({ role: "user", content: `${tag}: question ${i}` });
    out.push({ role: "assistant", content: `${tag}: answer ${i}` });
  }
  return out;
}

describe("two sessions on one engine", () => {
  it("compress concurrently without mixing their conversations", async () => {
    const engine = new OverlapEngine();
    const { host } = makeHost(server, { engine });
    const a = await host.openSession({ model: "test-model", contextLength: 8000, history: history("alpha") });
    const b = await host.openSession({ model: "test-model", contextLength: 8000, history: history("beta") });
    const [ra, rb] = await Promise.all([a.compress(), b.compress()]);
    expect(ra.status).toBe("committed");
    expect(rb.status).toBe("committed");
    expect(engine.maxInFlight).toBe(2);
    expect(JSON.stringify(a.messages)).not.toContain("beta");
    expect(JSON.stringify(b.messages)).not.toContain("alpha");
    expect(engine.seen.map((s) => [s.sessionId === a.id ? "a" : "b", s.firstContent.split(":")[0]]).sort()).toEqual([
      ["a", "alpha"],
      ["b", "beta"],
    ]);
  });

  it("run one pass per session at a time", async () => {
    const engine = new OverlapEngine();
    const { host } = makeHost(server, { engine });
    const a = await host.openSession({ model: "test-model", contextLength: 8000, history: history("alpha") });
    const results = await Promise.all([a.compress(), a.compress(), a.compress()]);
    expect(engine.maxPerSession).toBe(1);
    expect(results.map((r) => r.status)).toContain("committed");
  });

  it("run turns concurrently, each with its own conversation, usage and answers", async () => {
    server.script(async (req) => {
      const last = req.body.messages.at(-1)!.content as string;
      await new Promise((r) => setTimeout(r, last.startsWith("alpha") ? 60 : 10));
      return { content: `echo ${last}` };
    });
    const engine = new RecordingEngine();
    const { host, ofType } = makeHost(server, { engine });
    const a = await host.openSession({ model: "test-model", contextLength: 8000 });
    const b = await host.openSession({ model: "test-model", contextLength: 8000 });
    const [ra, rb] = await Promise.all([a.send("alpha 1"), b.send("beta 1")]);
    expect(ra.text).toBe("echo alpha 1");
    expect(rb.text).toBe("echo beta 1");
    const [ra2, rb2] = await Promise.all([a.send("alpha 2"), b.send("beta 2")]);
    expect(ra2.text).toBe("echo alpha 2");
    expect(rb2.text).toBe("echo beta 2");
    expect(a.messages.map((m) => m.content)).toEqual(["alpha 1", "echo alpha 1", "alpha 2", "echo alpha 2"]);
    expect(b.messages.map((m) => m.content)).toEqual(["beta 1", "echo beta 1", "beta 2", "echo beta 2"]);
    // Each request event belongs to its session's own conversation.
    for (const e of ofType("provider.request")) {
      const own = e.sessionId === a.id ? "alpha" : "beta";
      expect(e.messages.every((m) => String(m.content).includes(own))).toBe(true);
    }
  });

  it("queue a session's turns in call order", async () => {
    server.script(async (req) => ({ content: `seen ${req.body.messages.length}`, delayMs: 20 }));
    const { host } = makeHost(server, { engine: new RecordingEngine() });
    const s = await host.openSession({ model: "test-model", contextLength: 8000 });
    const results = await Promise.all([s.send("one"), s.send("two"), s.send("three")]);
    expect(results.map((r) => r.text)).toEqual(["seen 1", "seen 3", "seen 5"]);
  });

  it("an abandoned pass of one session never publishes into the other, and blocks only its own session until it settles", async () => {
    server.script([{ content: "beta answer", usage: { prompt_tokens: 777, completion_tokens: 3, total_tokens: 780 } }]);
    const engine = new RecordingEngine();
    let entered!: () => void;
    const alphaInside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const compress = engine.compress.bind(engine);
    const sessionsSeen: string[] = [];
    // An engine that ignores the abort signal for alpha's first pass and only finishes when released.
    engine.compress = async (messages: Message[], options?: CompressOptions) => {
      sessionsSeen.push(options!.sessionId!);
      if (sessionsSeen.length === 1) {
        entered();
        await gate;
      }
      return compress(messages, options);
    };
    const { host, ofType } = makeHost(server, { engine });
    const a = await host.openSession({ model: "test-model", contextLength: 8000, history: history("alpha") });
    const b = await host.openSession({ model: "test-model", contextLength: 8000, history: history("beta") });
    const alphaBefore = JSON.stringify(a.messages);

    const controller = new AbortController();
    const pending = a.compress(null, { signal: controller.signal });
    await alphaInside;
    // Session b works while a's pass is inside the engine: real usage lands on the shared engine.
    expect((await b.send("beta question")).status).toBe("completed");
    expect(engine.lastPromptTokens).toBe(777);
    controller.abort();
    expect((await pending).status).toBe("aborted");
    // Giving up on a's pass did not roll back b's usage.
    expect(engine.lastPromptTokens).toBe(777);
    expect(engine.lastTotalTokens).toBe(780);

    // a's pass is still running inside the engine: a second pass for a is refused ...
    expect((await a.compress()).status).toBe("busy");
    // ... while b compacts concurrently on the same engine.
    expect((await b.compress()).status).toBe("committed");
    expect(sessionsSeen).toEqual([a.id, b.id]);
    expect(engine.compressionCount).toBe(1);
    expect(b.status().lastPromptTokens).toBe(-1);
    expect(a.status().lastPromptTokens).toBe(0);

    const discarded = new Promise((resolve) => host.on("compaction.discarded", resolve));
    release();
    await discarded;
    // The late result published nothing: not into a, not into b, not into the engine's figures.
    expect(JSON.stringify(a.messages)).toBe(alphaBefore);
    expect(JSON.stringify(b.messages)).not.toContain("alpha");
    expect(engine.compressionCount).toBe(1);
    expect(engine.lastPromptTokens).toBe(-1);
    expect(ofType("compaction.committed").map((e) => e.sessionId)).toEqual([b.id]);

    // Once it settled, a may compact again.
    expect((await a.compress()).status).toBe("committed");
    expect(sessionsSeen).toEqual([a.id, b.id, a.id]);
  });

  it("a turn that needs a pass while its session's abandoned pass still runs reports it as blocked", async () => {
    server.script([{ content: "ok" }]);
    const engine = new RecordingEngine();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let passes = 0;
    engine.compress = async (messages: Message[]) => {
      passes++;
      await gate;
      return messages.slice(-2);
    };
    const { host, ofType } = makeHost(server, { engine, config: { contextTimeoutSeconds: 0.05 } });
    const a = await host.openSession({ model: "test-model", contextLength: 8000, history: history("alpha") });
    expect((await a.compress()).status).toBe("timed_out");
    engine.forceShouldCompress = true;
    const result = await a.send("next");
    expect(result.status).toBe("completed");
    expect(passes).toBe(1);
    expect(ofType("compaction.blocked").map((e) => e.reason)).toEqual(["a compaction pass for this session is still running"]);
    release();
  });

  it("keep turn ids and the -1 sentinel per session", async () => {
    server.script(() => ({ content: "ok", usage: { prompt_tokens: 50, completion_tokens: 1, total_tokens: 51 } }));
    const engine = new RecordingEngine();
    const { host } = makeHost(server, { engine });
    const a = await host.openSession({ model: "test-model", contextLength: 8000, history: history("alpha") });
    const b = await host.openSession({ model: "test-model", contextLength: 8000, history: history("beta") });
    const [ra, rb] = await Promise.all([a.send("one"), b.send("one")]);
    expect(ra.turnId.startsWith(`${a.id}:1:`)).toBe(true);
    expect(rb.turnId.startsWith(`${b.id}:1:`)).toBe(true);
    await a.compress();
    expect(a.status().lastPromptTokens).toBe(-1);
    expect(b.status().lastPromptTokens).toBe(50);
    expect((await b.send("two")).turnId.startsWith(`${b.id}:2:`)).toBe(true);
    expect(a.status().lastPromptTokens).toBe(-1);
  });
});
