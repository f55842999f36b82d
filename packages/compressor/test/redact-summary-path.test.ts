import type { ChatModel, ChatModelRequest, ChatModelResponse, Message } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextCompressor } from "../src/index.js";
import { agentConversation } from "./helpers.js";

/**
 * The summary-model path with credentials in the shapes agents meet: AWS credentials files and STS JSON in
 * tool arguments (JSON-escaped) and in long tool results (where a cut could split them), GitHub and provider
 * tokens after escapes, `.env` files. Nothing of them reaches the summariser's prompt.
 */

const GOOD = "## Latest Request\nNone\n## Goal\nFix the bugs.\n## Progress\nWork continues.";

function recording(): ChatModel & { requests: ChatModelRequest[] } {
  const requests: ChatModelRequest[] = [];
  return {
    model: "recording",
    requests,
    async complete(req): Promise<ChatModelResponse> {
      requests.push(req);
      return { message: { role: "assistant", content: GOOD }, finishReason: "stop" } as ChatModelResponse;
    },
  };
}

const chars = (alphabet: string, n: number) => fc.array(fc.constantFrom(...alphabet.split("")), { minLength: n, maxLength: n }).map((a) => a.join(""));
const UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = `${UP}abcdefghijklmnopqrstuvwxyz0123456789`;
const keyId = chars(`${UP}234567`, 16).map((s) => `ASIA${s}`);
const secretKey = chars(`${ALNUM}+/`, 37).map((s) => `aB3${s}`);
const session = chars(ALNUM, 60).map((s) => `IQoJb3JpZ2lu${s}`);
const ghToken = chars(ALNUM, 36).filter((s) => /\d/.test(s)).map((s) => `ghp_${s}`);
const slackApp = chars("0123456789abcdef", 64).map((s) => `xapp-1-A0${s.slice(0, 9).toUpperCase()}-1234567890123-${s}`);
const webhook = chars(ALNUM, 32).filter((s) => /\d/.test(s) && /[A-Z]/.test(s)).map((s) => `whsec_${s}`);
const railsBase = chars("0123456789abcdef", 128);

describe("the summary-model path holds no credential", () => {
  it("generated credentials files, STS JSON, tokens after escapes and .env values", async () => {
    await fc.assert(
      fc.asyncProperty(keyId, secretKey, session, ghToken, slackApp, webhook, railsBase, fc.integer({ min: 0, max: 8_000 }), async (id, secret, sess, gh, xapp, whsec, base, pad) => {
        const file = `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${secret}\naws_session_token = ${sess}\n`;
        const sts = JSON.stringify({ Credentials: { AccessKeyId: id, SecretAccessKey: secret, SessionToken: sess, Expiration: "2026-01-01T00:00:00Z" } }, null, 2);
        const env = `RAILS_ENV=production\nSECRET_KEY_BASE=${base}\nSLACK_APP_TOKEN=${xapp}\nSTRIPE_WEBHOOK_SECRET=${whsec}\n`;
        const [system, ...rest] = agentConversation({ turns: 12 });
        const early: Message[] = [
          { role: "user", content: "check my cloud credentials" },
          { role: "assistant", content: null, tool_calls: [{ id: "w1", type: "function", function: { name: "write_file", arguments: JSON.stringify({ path: "~/.aws/credentials", content: file }) } }] } as Message,
          { role: "tool", tool_call_id: "w1", content: "ok" },
          { role: "assistant", content: null, tool_calls: [{ id: "s1", type: "function", function: { name: "shell", arguments: JSON.stringify({ cmd: `echo\n${gh}` }) } }] } as Message,
          // A long result: the secrets sit where a head/tail cut may fall.
          { role: "tool", tool_call_id: "s1", content: `${"x".repeat(pad)}\n${sts}\n${env}\n${"y".repeat(pad)}` },
          { role: "assistant", content: "noted" },
        ];
        const model = recording();
        await new ContextCompressor({ contextLength: 16_000, chatModel: model }).compress([system!, ...early, ...rest]);
        expect(model.requests.length).toBeGreaterThan(0);
        const prompts = JSON.stringify(model.requests.map((r) => r.messages));
        for (const value of [id, secret, sess, gh, xapp, whsec, base, sess.slice(12, 40), secret.slice(10, 30)]) expect(prompts).not.toContain(value);
      }),
      { numRuns: 25 },
    );
  });
});
