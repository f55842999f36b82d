import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkConversation, contentText } from "@context-engine/core";
import type { ChatModelRequest, ChatModelResponse, Message } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { agentConversation, FakeSummarizer } from "./engine-helpers.js";
import { testStore } from "./engine-setup.js";

// The engine's work clock on a real store (SQLite, and PostgreSQL in the postgres project): the scheduled drain
// of an imported backlog runs only while no hook is in flight, its CPU time is reported in getStatus(), and it
// still finishes with no host call at all.

const WINDOW = 16_000;
/** Marks the second session's messages, so its summaries can be told from the drain's. */
const OTHER = "OTHER_SESSION_MARK";

/** A summariser whose calls for the other session wait at a gate; the drain's calls are counted apart. */
class GatedSummarizer extends FakeSummarizer {
  drainCalls = 0;
  #open: Promise<void> | null = null;
  #openGate: (() => void) | null = null;
  #entered: (() => void) | null = null;
  /** Resolves when a call for the other session is waiting at the gate. */
  readonly otherWaiting = new Promise<void>((resolve) => (this.#entered = resolve));

  constructor() {
    super();
    this.#open = new Promise((resolve) => (this.#openGate = resolve));
  }

  openGate(): void {
    this.#openGate?.();
  }

  override async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    const text = request.messages.map((m) => contentText(m.content)).join("\n");
    if (text.includes(OTHER)) {
      this.#entered?.();
      await this.#open;
    } else this.drainCalls++;
    return super.complete(request);
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function openEngine(model: FakeSummarizer): LcmEngine {
  const t = testStore();
  // The whole history stored by the first turn (no background import): this test is about the drain.
  const engine = new LcmEngine({ dataDir: t.dataDir, contextLength: WINDOW, chatModel: model, config: { ...t.config, import_in_background_above: 0 } });
  cleanups.push(async () => {
    await engine.close();
    await t.cleanup();
  });
  return engine;
}

async function frontierTokens(engine: LcmEngine, sessionId: string): Promise<number> {
  const conv = (await engine.store.findConversation(sessionId))!;
  return (await engine.store.getConversation(conv.id))!.frontierTokens;
}

function backgroundCpuMs(engine: LcmEngine): number {
  return (engine.getStatus() as unknown as { lcm: { backgroundCpuMs: number } }).lcm.backgroundCpuMs;
}

/** The host's first turn with an imported history (its compress runs bounded passes), then its onTurnComplete. */
async function importHistory(engine: LcmEngine, sessionId: string, imported: Message[]): Promise<void> {
  await engine.onSessionStart(sessionId);
  const compacted = await engine.compress(imported, { sessionId });
  expect(checkConversation(compacted)).toEqual([]);
  await engine.onTurnComplete([...compacted, { role: "user", content: "go on" }, { role: "assistant", content: "going on" }], null, { sessionId });
}

describe("background work on the engine's work clock", () => {
  it("the drain waits while a hook is in flight, reports its CPU time, and still drains the backlog with no host call", async () => {
    const model = new GatedSummarizer();
    const engine = openEngine(model);
    await importHistory(engine, "imp", agentConversation(700, 43));
    const threshold = engine.thresholdTokens;
    expect(await frontierTokens(engine, "imp")).toBeGreaterThan(threshold);

    // Another session's compress is a hook in flight for as long as its summariser call waits at the gate.
    const other = agentConversation(120, 44).map((m) => (m.role === "user" ? { ...m, content: `${contentText(m.content)} ${OTHER}` } : m));
    const compressing = engine.compress(other, { sessionId: "other" });
    await model.otherWaiting;
    const drainCallsHeld = model.drainCalls;
    // Plenty of chances for the drain to run (its pauses are a few ms): it must not start a summary meanwhile.
    for (let i = 0; i < 10; i++) await sleep(20);
    expect(model.drainCalls).toBe(drainCallsHeld);
    model.openGate();
    expect(checkConversation(await compressing)).toEqual([]);

    // No hook from here on: the drain goes on until the frontier is under the threshold.
    await vi.waitFor(async () => expect(await frontierTokens(engine, "imp")).toBeLessThan(threshold), { timeout: 120_000, interval: 50 });
    await engine.whenIdle("imp");
    expect(model.drainCalls).toBeGreaterThan(drainCallsHeld);
    expect(backgroundCpuMs(engine)).toBeGreaterThan(0);
    expect(engine.backgroundCpuMs).toBe(backgroundCpuMs(engine));
  }, 180_000);
});
