import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An OpenAI-compatible chat-completions endpoint on 127.0.0.1 that answers
 * at once: a short assistant reply and a usage figure of about one token per
 * four characters of the request, so engines see real prompt sizes.
 */
export class LoopbackChatServer {
  readonly apiKey = "bench-key";
  requests = 0;
  #server: Server;
  #url = "";

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.requests++;
        const body = Buffer.concat(chunks).toString("utf8");
        let model = "bench-model";
        try {
          model = (JSON.parse(body) as { model?: string }).model ?? model;
        } catch {
          res.writeHead(400).end();
          return;
        }
        const prompt = Math.ceil(body.length / 4);
        const text = JSON.stringify({
          id: `chatcmpl-${this.requests}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{ index: 0, message: { role: "assistant", content: "Done: the change is in place and the tests pass.", refusal: null }, finish_reason: "stop" }],
          usage: { prompt_tokens: prompt, completion_tokens: 12, total_tokens: prompt + 12 },
        });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      });
    });
  }

  get baseURL(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
