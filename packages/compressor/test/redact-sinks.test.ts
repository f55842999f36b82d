import type { ChatModel, ChatModelRequest, ChatModelResponse, Message } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { SECRET_CORPUS } from "@context-engine/core/test";
import { describe, expect, it } from "vitest";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { agentConversation } from "./helpers.js";

const GOOD = "## Latest Request\nNone\n## Goal\nFix the bugs.\n## Progress\n1. Fixed bug_3 in src/module_3.ts.";
const SECRETS = SECRET_CORPUS.map((c) => c.secret);
const leaked = (text: string) => SECRETS.filter((s) => text.includes(s));

/** A model that records its prompts and answers with `reply`. */
function recording(reply: (req: ChatModelRequest) => string): ChatModel & { requests: ChatModelRequest[] } {
  const requests: ChatModelRequest[] = [];
  return {
    model: "recording",
    requests,
    async complete(req): Promise<ChatModelResponse> {
      requests.push(req);
      return { message: { role: "assistant", content: reply(req) }, finishReason: "stop" } as ChatModelResponse;
    },
  };
}

/** The conversation with every corpus secret in user text, tool arguments and tool results early on (what gets summarised). */
function planted(): Message[] {
  const [system, ...rest] = agentConversation({ turns: 12 });
  const early: Message[] = SECRET_CORPUS.flatMap(({ text }, i): Message[] => [
    { role: "user", content: `step ${i}: ${text}` },
    { role: "assistant", content: null, tool_calls: [{ id: `s${i}`, type: "function", function: { name: "shell", arguments: JSON.stringify({ cmd: text }) } }] } as Message,
    { role: "tool", tool_call_id: `s${i}`, content: `$ ${text}\nok` },
    { role: "assistant", content: `Done: ${text}` },
  ]);
  return [system!, ...early, ...rest];
}

describe("the compressor's sinks hold no secret", () => {
  it("the summariser's prompt", async () => {
    const model = recording(() => GOOD);
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    await engine.compress(planted());
    expect(model.requests.length).toBeGreaterThan(0);
    const prompts = JSON.stringify(model.requests.map((r) => r.messages));
    expect(prompts).toContain("[REDACTED:");
    expect(leaked(prompts)).toEqual([]);
  });

  it("the summary, whether the model's (which may repeat a secret) or the extractive fallback", async () => {
    const modes = new Set<string>();
    for (const { text, secret } of SECRET_CORPUS) {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: recording(() => `${GOOD}\n## Notes\nAs configured: ${text}`) });
      const out = await engine.compress(planted());
      const summary = contentText(out.find(isSummaryMessage)!.content);
      modes.add(engine.getStatus().lastCompaction?.mode ?? "none");
      expect(summary, text).not.toContain(secret);
    }
    expect(modes).toContain("model");
    // Without a model the extractive summary quotes the turns themselves.
    const extractive = new ContextCompressor({ contextLength: 16_000 });
    const summary = contentText((await extractive.compress(planted())).find(isSummaryMessage)!.content);
    expect(leaked(summary)).toEqual([]);
  });
});
