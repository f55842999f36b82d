// Runs on Node 24 (OpenClaw's engines field: >=24.16): OpenClaw's own harness
// code drives the adapter: its assemble result check, its post-turn
// finalization, its compaction safety timeout and its plugin entry helper.
import {
  assembleHarnessContextEngine,
  compactContextEngineWithSafetyTimeout,
  finalizeHarnessContextEngineTurn,
  isActiveHarnessContextEngine,
} from "openclaw/plugin-sdk/agent-harness-runtime";
import type { AgentMessage } from "openclaw/plugin-sdk/agent-harness-runtime";
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine, defineContextEnginePlugin, toOpenAiMessages } from "../src/index.js";
import type { OpenClawContextEngine } from "../src/index.js";
import { BadEngine, NoopEngine, TailEngine } from "../test/engines.js";
import { transcript } from "../test/fixtures.js";

const asAgent = (m: unknown) => m as AgentMessage[];

async function assembleViaOpenClaw(engine: OpenClawContextEngine, messages: AgentMessage[]) {
  return assembleHarnessContextEngine({
    contextEngine: engine as never,
    sessionId: "s1",
    sessionKey: "agent:main:s1",
    messages,
    tokenBudget: 100_000,
    modelId: "claude-test",
    prompt: "next",
  } as never);
}

describe("OpenClaw's own harness code drives the adapter", () => {
  it("is an active (non-legacy) engine", () => {
    const oc = createOpenClawContextEngine({ id: "noop", factory: () => new NoopEngine() });
    expect(isActiveHarnessContextEngine(oc as never)).toBe(true);
  });

  it("assembleHarnessContextEngine: the model sees what the engine decided", async () => {
    const engine = new TailEngine(4);
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => engine });
    const messages = asAgent(transcript(4));
    const result = await assembleViaOpenClaw(oc, messages);
    const decided = engine.compress(toOpenAiMessages(messages as never).messages);
    expect(toOpenAiMessages(result!.messages as never).messages).toEqual(decided.slice(1));
    expect(result!.systemPromptAddition).toBe(decided[0]!.content);
  });

  it("a no-op engine leaves OpenClaw's messages unchanged", async () => {
    const oc = createOpenClawContextEngine({ id: "noop", factory: () => new NoopEngine() });
    const messages = asAgent(transcript(3));
    const result = await assembleViaOpenClaw(oc, messages);
    expect(result!.messages).toEqual(messages);
  });

  it.each(["throw", "hang", "garbage", "orphan"] as const)("a %s engine: OpenClaw's loop gets the unmodified messages", async (mode) => {
    const oc = createOpenClawContextEngine({ id: "bad", factory: () => new BadEngine(mode), stepTimeoutMs: 50, compactTimeoutMs: 50 });
    const messages = asAgent(transcript(3));
    const result = await assembleViaOpenClaw(oc, messages);
    expect(result!.messages).toEqual(messages);
    const warnings: string[] = [];
    const finalized = await finalizeHarnessContextEngineTurn({
      contextEngine: oc as never,
      promptError: false,
      aborted: false,
      yieldAborted: false,
      sessionIdUsed: "s1",
      sessionKey: "agent:main:s1",
      sessionFile: "",
      messagesSnapshot: messages,
      prePromptMessageCount: 0,
      modelId: "claude-test",
      warn: (m: string) => warnings.push(m),
      runMaintenance: async () => undefined,
    } as never);
    expect(finalized.postTurnFinalizationSucceeded).toBe(true);
    const compacted = await compactContextEngineWithSafetyTimeout(oc as never, { sessionId: "s1", sessionKey: "agent:main:s1", force: true }, 1_000);
    expect(compacted.compacted).toBe(false);
  });

  it("finalizeHarnessContextEngineTurn feeds the finished turn to the engine", async () => {
    const engine = new TailEngine(4, false);
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => engine });
    const messages = asAgent(transcript(2));
    await finalizeHarnessContextEngineTurn({
      contextEngine: oc as never,
      promptError: false,
      aborted: false,
      yieldAborted: false,
      sessionIdUsed: "s1",
      sessionKey: "agent:main:s1",
      sessionFile: "",
      messagesSnapshot: messages,
      prePromptMessageCount: 4,
      modelId: "claude-test",
      warn: () => {},
      runMaintenance: async () => undefined,
    } as never);
    expect(engine.turns).toHaveLength(1);
    expect(engine.usages.at(-1)).toMatchObject({ prompt_tokens: 13, completion_tokens: 5 });
  });

  // A user's compaction (`forceReason: "manual"`); OpenClaw's automatic calls follow the engine's threshold (protocol tests).
  it("compactContextEngineWithSafetyTimeout runs the engine's compaction", async () => {
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => new TailEngine(4, false) });
    await assembleViaOpenClaw(oc, asAgent(transcript(4)));
    const params = { sessionId: "s1", sessionKey: "agent:main:s1", force: true, runtimeContext: { forceReason: "manual" } };
    const result = await compactContextEngineWithSafetyTimeout(oc as never, params as never, 5_000);
    expect(result).toMatchObject({ ok: true, compacted: true });
  });

  it("defineContextEnginePlugin has the shape definePluginEntry produces and registers the engine", async () => {
    const ours = defineContextEnginePlugin({ id: "tail", name: "Tail", description: "d", engine: () => ({ factory: () => new TailEngine() }) });
    const theirs = definePluginEntry({ id: ours.id, name: ours.name, description: ours.description, configSchema: ours.configSchema as never, register: ours.register as never });
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    const registered = new Map<string, (ctx: object) => unknown>();
    theirs.register({ id: "tail", pluginConfig: {}, registerContextEngine: (id: string, f: never) => registered.set(id, f) } as never);
    const engine = (await registered.get("tail")!({})) as OpenClawContextEngine;
    expect(engine.info.id).toBe("tail");
    expect(isActiveHarnessContextEngine(engine as never)).toBe(true);
  });
});
