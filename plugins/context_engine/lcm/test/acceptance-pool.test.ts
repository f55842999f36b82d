import { afterEach, describe, expect, it } from "vitest";
import { ChatModelError, estimateTextTokens, silentLogger } from "@context-engine/core";
import type { ChatModel, ChatModelRequest, ChatModelResponse } from "@context-engine/core";
import { LcmEngine, acquireStore, configSchema, createRedactor } from "../src/index.js";
import { Summarizer } from "../src/compaction/summarizer.js";
import { renderSourceMessages } from "../src/compaction/source-text.js";
import { pooledStoreCount } from "../src/store/pool.js";
import { agentConversation, tempDir } from "./engine-helpers.js";
import { NOT_SECRETS, SECRET_CORPUS } from "@context-engine/core/test";

const cleanups: Array<() => unknown> = [];
// Awaited: an engine's close finishes its background work first, and must be over before the next test counts handles.
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const source = renderSourceMessages(agentConversation(6, 2).slice(1).map((message, seq) => ({ seq, message })));
const sourceTokens = estimateTextTokens(source);
/** A faithful short summary: the first words of the source. */
const faithful = (req: ChatModelRequest) => {
  const user = String(req.messages.at(-1)?.content ?? "");
  return user.slice(user.indexOf("<source>") + 8).replace(/\s+/g, " ").trim().split(" ").slice(0, 40).join(" ");
};

function scripted(answers: Array<(req: ChatModelRequest) => Promise<ChatModelResponse>>): ChatModel & { requests: ChatModelRequest[] } {
  const requests: ChatModelRequest[] = [];
  return {
    model: "scripted",
    requests,
    async complete(req) {
      requests.push(req);
      return answers[Math.min(requests.length - 1, answers.length - 1)]!(req);
    },
  };
}
const reply = (content: (req: ChatModelRequest) => unknown, finishReason = "stop") => async (req: ChatModelRequest) =>
  ({ message: { role: "assistant", content: content(req) }, finishReason }) as ChatModelResponse;
const http500 = async (): Promise<ChatModelResponse> => {
  throw new ChatModelError("overloaded", "the provider failed or is overloaded (HTTP 500): Internal Server Error", { status: 500 });
};

function summarizer(chatModel?: ChatModel, model?: string): Summarizer {
  return new Summarizer({
    ...(chatModel ? { chatModel } : {}),
    ...(model ? { model } : {}),
    temperature: 0.2,
    timeoutMs: 5_000,
    fallbackMaxTokens: 256,
    customInstructions: "",
    maxUnsupportedRatio: 0.34,
    breakerFailures: 3,
    breakerCooldownMs: 60_000,
    logger: silentLogger,
  });
}
const summarize = (s: Summarizer) => s.summarize({ depth: 0, source, sourceTokens, targetTokens: 300 });

describe("LCM summary acceptance (shared checks)", () => {
  it("never keeps a truncated answer or a refusal: deterministic summary, marked rejected", async () => {
    for (const [answer, reason] of [
      [reply(faithful, "length"), "truncated"],
      [reply(() => "I'm sorry, but I can't help with that."), "refusal"],
    ] as const) {
      const r = await summarize(summarizer(scripted([answer])));
      expect(r.level).toBe("fallback");
      expect(r.rejected?.reason).toBe(reason);
    }
  });

  it("normalises a {text} object and a list of parts", async () => {
    for (const shape of [(req: ChatModelRequest) => ({ text: faithful(req) }), (req: ChatModelRequest) => [{ type: "text", text: faithful(req) }]]) {
      const r = await summarize(summarizer(scripted([reply(shape)])));
      expect(r.level).toBe("normal");
      expect(r.content.length).toBeGreaterThan(20);
    }
  });

  it("retries a single HTTP 500; a repeated one falls back (it is not 'overloaded')", async () => {
    const once = scripted([http500, reply(faithful)]);
    expect((await summarize(summarizer(once))).level).toBe("normal");
    expect(once.requests).toHaveLength(2);
    const always = scripted([http500]);
    const r = await summarize(summarizer(always));
    expect(r.level).toBe("fallback");
    expect(r.fallbackReason).toMatch(/server_error/);
  });

  it("follows /model unless summary_model is set", async () => {
    const model = scripted([reply(faithful)]);
    const s = summarizer(model);
    await summarize(s);
    expect(model.requests[0]!.model).toBeUndefined();
    s.followModel("switched");
    await summarize(s);
    expect(model.requests.at(-1)!.model).toBe("switched");
    const pinned = scripted([reply(faithful)]);
    const p = summarizer(pinned, "cheap");
    p.followModel("switched");
    await summarize(p);
    expect(pinned.requests.at(-1)!.model).toBe("cheap");
  });

  it("the engine routes updateModel to its summariser and marks a rejected pass in lastCompaction", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const model = scripted([reply(faithful, "length")]);
    const engine = new LcmEngine({ dataDir: t.dir, contextLength: 8_000, model: "start", chatModel: model, config: { prepare_in_background: false } });
    cleanups.unshift(() => engine.close());
    engine.updateModel("start", 8_000);
    engine.updateModel("after-switch", 8_000);
    await engine.compress(agentConversation(40, 3), { sessionId: "s" });
    expect(model.requests.length).toBeGreaterThan(0);
    expect(model.requests.every((r) => r.model === "after-switch")).toBe(true);
    const session = (engine.getStatus().lcm as { session: { lastCompaction: { rejected?: { reason: string } } } }).session;
    expect(session.lastCompaction.rejected?.reason).toBe("truncated");
  });
});

describe("one store handle shared by the engines of a process", () => {
  it("instances on one file share a handle, which closes with the last of them", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const before = pooledStoreCount();
    const a = new LcmEngine({ dataDir: t.dir, contextLength: 8_000 });
    const b = new LcmEngine({ dataDir: t.dir, contextLength: 8_000 });
    expect(a.store).toBe(b.store);
    expect(pooledStoreCount()).toBe(before + 1);
    await a.onTurnComplete(agentConversation(2, 1), null, { sessionId: "A" });
    await a.close();
    // b still works on the shared handle and sees A's stored conversation.
    await b.onTurnComplete(agentConversation(2, 2), null, { sessionId: "B" });
    expect((await b.store.stats()).conversations).toBe(2);
    await b.close();
    expect(pooledStoreCount()).toBe(before);
    // A new instance reopens the file.
    const c = new LcmEngine({ dataDir: t.dir, contextLength: 8_000 });
    expect((await c.store.stats()).conversations).toBe(2);
    await c.close();
  });

  it("a lease protects the live sessions of every holder; releasing twice is harmless", () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const one = acquireStore({ dataDir: t.dir });
    const two = acquireStore({ dataDir: t.dir });
    one.protect(() => ["s1"]);
    two.protect(() => ["s2"]);
    expect(one.protectedSessions().sort()).toEqual(["s1", "s2"]);
    two.release();
    two.release();
    expect(one.protectedSessions()).toEqual(["s1"]);
    one.release();
  });

  it("declares its config schema on the class", () => {
    expect(LcmEngine.configSchema).toBe(configSchema);
  });
});

describe("redaction corpus", () => {
  const r = createRedactor();
  it("masks every real-looking secret", () => {
    const leaked = SECRET_CORPUS.filter(({ text, secret }) => r.redactText(text).text.includes(secret));
    expect(leaked.map((c) => `${c.text} -> ${r.redactText(c.text).text}`)).toEqual([]);
  });
  it("leaves look-alikes that are not secrets alone", () => {
    const changed = NOT_SECRETS.filter((text) => r.redactText(text).text !== text);
    expect(changed.map((t) => `${t} -> ${r.redactText(t).text}`)).toEqual([]);
  });
});
