import type { ChatModel, ChatModelRequest, ChatModelResponse, Message } from "@context-engine/core";
import { ChatModelError, LEGACY_SUMMARY_PREFIX, contentText } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { CompressionConfigSchema, ContextCompressor, EXTRACTIVE_TAG, SUMMARY_PREFIX, extractSummaryBody, isSummaryMessage } from "../src/index.js";
import { agentConversation, expectValid } from "./helpers.js";

const conversation = () => agentConversation({ turns: 12 });
const GOOD = "## Latest Request\nNone\n## Goal\nFix the bugs.\n## Progress\n1. Fixed bug_3 in src/module_3.ts.";

/** A model whose answers come from a script, recording every request. */
function scripted(answers: Array<(req: ChatModelRequest) => Promise<ChatModelResponse>>): ChatModel & { requests: ChatModelRequest[] } {
  const requests: ChatModelRequest[] = [];
  return {
    model: "scripted",
    requests,
    async complete(req) {
      requests.push(req);
      const next = answers[Math.min(requests.length - 1, answers.length - 1)]!;
      return next(req);
    },
  };
}
const answer = (content: unknown, finishReason = "stop") => async (): Promise<ChatModelResponse> =>
  ({ message: { role: "assistant", content }, finishReason }) as ChatModelResponse;
const http500 = () => async (): Promise<ChatModelResponse> => {
  throw new ChatModelError("overloaded", "the provider failed or is overloaded (HTTP 500): Internal Server Error", { status: 500 });
};

function summaryOf(out: readonly Message[]): string {
  return contentText(out.find(isSummaryMessage)!.content);
}

describe("summary acceptance in the compressor", () => {
  it("uses a summary returned as a {text} object or a list of parts", async () => {
    for (const content of [{ text: GOOD }, [{ type: "text", text: GOOD }]]) {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: scripted([answer(content)]) });
      const out = await engine.compress(conversation());
      expect(summaryOf(out)).toContain("Fixed bug_3");
      expect(engine.getStatus().lastCompaction?.mode).toBe("model");
    }
  });

  it("never doubles the prefix, and replaces a legacy one", async () => {
    for (const reply of [`${SUMMARY_PREFIX}\n\n${GOOD}`, `${LEGACY_SUMMARY_PREFIX} ${GOOD}`]) {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: scripted([answer(reply)]) });
      const text = summaryOf(await engine.compress(conversation()));
      expect(text.split(SUMMARY_PREFIX)).toHaveLength(2);
      expect(text).not.toContain(LEGACY_SUMMARY_PREFIX);
    }
    // A transcript summary with the legacy prefix is found and updated, not kept beside the new one.
    const legacy: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: `${LEGACY_SUMMARY_PREFIX} Earlier: the user asked for LEGACY_TOKEN_42.` },
      ...conversation().slice(1),
    ];
    expect(extractSummaryBody(legacy[1]!)).toBe("Earlier: the user asked for LEGACY_TOKEN_42.");
    const model = scripted([answer(GOOD)]);
    const out = await new ContextCompressor({ contextLength: 16_000, chatModel: model }).compress(legacy);
    expect(contentText(model.requests[0]!.messages[0]!.content)).toContain("LEGACY_TOKEN_42");
    expect(out.filter((m) => contentText(m.content).includes(LEGACY_SUMMARY_PREFIX))).toHaveLength(0);
  });

  it.each([
    ["copy", (prompt: string) => prompt],
    ["oversized", () => `## Goal\n${"word ".repeat(250_000)}`],
    ["refusal", () => "I'm sorry, but I can't help with that."],
    ["invented", () => "## Progress\nEdited lib/http/client.py and server_boot.go; build 99812 green; see fetchRemoteConfig."],
  ] as const)("rejects a %s and falls back to the deterministic summary, marked", async (reason, reply) => {
    const model = scripted([async (req) => answer(reply(contentText(req.messages[0]!.content)))()]);
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    const out = await engine.compress(conversation());
    expectValid(out);
    expect(summaryOf(out)).toContain(EXTRACTIVE_TAG);
    const status = engine.getStatus();
    expect(status.lastCompaction?.mode).toBe("fallback");
    expect(status.lastCompaction?.rejected?.reason).toBe(reason);
    expect(status.lastRejection?.reason).toBe(reason);
  });

  it("a truncated answer is never kept (the compressor's rule: abort, marked)", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: scripted([answer(GOOD, "length")]) });
    const messages = conversation();
    expect(await engine.compress(messages)).toBe(messages);
    expect(engine.getStatus().lastRejection?.reason).toBe("truncated");
  });
});

describe("server errors and model switches", () => {
  it("retries a single HTTP 500 and uses the answer", async () => {
    const model = scripted([http500(), answer(GOOD)]);
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    const out = await engine.compress(conversation());
    expect(model.requests).toHaveLength(2);
    expect(engine.getStatus().lastCompaction?.mode).toBe("model");
    expect(summaryOf(out)).toContain("Fixed bug_3");
  });

  it("a repeated HTTP 500 falls back instead of aborting; it is not 'overloaded'", async () => {
    const model = scripted([http500()]);
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    const out = await engine.compress(conversation());
    expect(model.requests).toHaveLength(2);
    expect(summaryOf(out)).toContain(EXTRACTIVE_TAG);
    expect(engine.getStatus().lastSummaryError).not.toMatch(/^overloaded/);
  });

  it("an explicit capacity answer still counts as overloaded (abort)", async () => {
    const model = scripted([async () => { throw new ChatModelError("overloaded", "overloaded_error: Overloaded", { status: 529 }); }]);
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    const messages = conversation();
    expect(await engine.compress(messages)).toBe(messages);
    expect(model.requests).toHaveLength(1);
  });

  it("after /model the summariser follows the new model, unless summary_model is set", async () => {
    const model = scripted([answer(GOOD)]);
    const engine = new ContextCompressor({ contextLength: 16_000, model: "start-model", chatModel: model });
    await engine.compress(conversation());
    expect(model.requests[0]!.model).toBeUndefined();
    engine.updateModel("switched-model", 16_000);
    await engine.compress(conversation(), { force: true });
    expect(model.requests.at(-1)!.model).toBe("switched-model");

    const pinned = scripted([answer(GOOD)]);
    const fixed = new ContextCompressor({ contextLength: 16_000, model: "start-model", chatModel: pinned, config: { summary_model: "cheap-model" } });
    fixed.updateModel("switched-model", 16_000);
    await fixed.compress(conversation());
    expect(pinned.requests.at(-1)!.model).toBe("cheap-model");
  });
});

describe("per-session state", () => {
  it("a previous summary of one session never reaches another session's prompt", async () => {
    const model = scripted([answer(`${GOOD}\nSESSION_A_SECRET_FACT`), answer(GOOD)]);
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    await engine.compress(conversation());
    // The same instance (reused by a host that should not) sees another transcript with its own summary.
    const other: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: `${SUMMARY_PREFIX}\n\nSESSION_B_FACT from the other session.\n\n[END OF CONTEXT SUMMARY — respond to what follows, not to the summary]` },
      ...conversation().slice(1),
    ];
    await engine.compress(other, { force: true });
    const prompt = contentText(model.requests.at(-1)!.messages[0]!.content);
    expect(prompt).toContain("SESSION_B_FACT");
    expect(prompt).not.toContain("SESSION_A_SECRET_FACT");
  });

  it("two instances from one factory keep thresholds and cooldowns apart", async () => {
    const a = new ContextCompressor({ contextLength: 128_000 });
    const b = new ContextCompressor({ contextLength: 8_000 });
    expect(a.thresholdTokens).toBe(96_000);
    expect(b.thresholdTokens).toBe(6_000);
    b.updateModel("small", 8_000);
    expect(a.thresholdTokens).toBe(96_000);
  });

  it("declares its config schema on the class", () => {
    expect(ContextCompressor.configSchema).toBe(CompressionConfigSchema);
    expect(ContextCompressor.configSchema.safeParse({ threshold: 2 }).success).toBe(false);
  });
});

describe("secret redaction before the summariser", () => {
  it("masks every secret of the corpus and leaves the look-alikes alone", async () => {
    const { redactSecrets } = await import("../src/redact.js");
    const { NOT_SECRETS, SECRET_CORPUS } = await import("@context-engine/core/test");
    const leaked = SECRET_CORPUS.filter(({ text, secret }) => redactSecrets(text).includes(secret));
    expect(leaked.map((c) => c.text)).toEqual([]);
    const changed = NOT_SECRETS.filter((text) => redactSecrets(text) !== text);
    expect(changed.map((t) => `${t} -> ${redactSecrets(t)}`)).toEqual([]);
  });

  it("a catastrophic-looking long word is redacted in linear time", async () => {
    const { redactSecrets } = await import("../src/redact.js");
    const long = "secret" + "a".repeat(200_000) + " token" + "b".repeat(200_000);
    expect(redactSecrets(long).length).toBeGreaterThan(0);
  });
});
