// LCM's log lines keep an error's causes (redacted): a summary model that cannot be reached says why
// only in the cause of its error (fetch failed ← connect ECONNREFUSED).
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ChatModelError } from "@context-engine/core";
import type { ChatModel, ChatModelRequest, ChatModelResponse } from "@context-engine/core";
import { Summarizer } from "../src/compaction/summarizer.js";

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An OpenAI-compatible client over real fetch; a failed request becomes a `network` ChatModelError with its cause. */
function httpModel(baseUrl: string): ChatModel {
  return {
    async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
      try {
        const res = await fetch(`${baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: request.messages }), headers: { authorization: "Bearer sk-test-abcdefghijklmnopqrstuvwx0123456789" } });
        return (await res.json()) as ChatModelResponse;
      } catch (error) {
        throw new ChatModelError("network", `request to ${baseUrl} failed (key sk-test-abcdefghijklmnopqrstuvwx0123456789)`, { cause: error });
      }
    },
  };
}

describe("LCM's logger gets an error's causes", () => {
  it("a summary model that cannot be reached: the log names the refused connection; the key is redacted", async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const log = (message: string, data?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(data ?? {})}`);
    const summarizer = new Summarizer({
      chatModel: httpModel(`http://127.0.0.1:${port}/v1`),
      temperature: 0,
      timeoutMs: 5_000,
      fallbackMaxTokens: 512,
      customInstructions: "",
      maxUnsupportedRatio: 0.34,
      breakerFailures: 3,
      breakerCooldownMs: 60_000,
      logger: { debug: log, info: log, warn: log, error: log },
    });
    const source = "user: please rename the parser module\nassistant: renamed parser.ts to tokenizer.ts ".repeat(20);
    const result = await summarizer.summarize({ depth: 0, source, sourceTokens: 400, targetTokens: 100 });
    expect(result.level).toBe("fallback");
    expect(result.fallbackReason).toContain("ECONNREFUSED");
    const failed = lines.find((l) => l.startsWith("lcm: summariser call failed")) ?? "";
    expect(failed).toContain("fetch failed");
    expect(failed).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(failed).not.toContain("abcdefghijklmnopqrstuvwx0123456789");
  });
});
