import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer of the fake chat-completions endpoint. */
export type ScriptedReply =
  | {
      content?: string | null;
      toolCalls?: Array<{ id?: string; name: string; arguments?: unknown }>;
      usage?: Record<string, unknown> | null;
      finishReason?: string;
      /** Wait this long before answering (a slow provider). */
      delayMs?: number;
    }
  | { status: number; error: { message: string; type?: string; code?: string | null }; headers?: Record<string, string>; delayMs?: number }
  /** A raw JSON body with status 200 (malformed responses). */
  | { raw: unknown; delayMs?: number }
  /** Drop the connection without an answer (a network failure). */
  | { destroy: true };

export interface RecordedRequest {
  body: {
    model: string;
    messages: Array<Record<string, unknown>>;
    tools?: Array<Record<string, unknown>>;
    [key: string]: unknown;
  };
  headers: IncomingMessage["headers"];
}

export type ReplyScript = ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

/**
 * A small OpenAI-compatible chat-completions server on 127.0.0.1 for
 * end-to-end tests: scripted answers, tool calls, usage, errors, slow
 * answers. Every request body is recorded.
 */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  #server: Server;
  #script: ReplyScript = [];
  #served = 0;
  #url = "";
  #apiKey: string;
  /** How a `stream: true` request is answered: SSE chunks, a 400 refusal, or a plain JSON body (ignored). */
  streaming: "sse" | "refuse" | "ignore" = "sse";
  // Bumped by script()/reset(): a request that arrived before is answered
  // without consuming the new script (a late request from an earlier test).
  #generation = 0;

  constructor(options: { apiKey?: string } = {}) {
    this.#apiKey = options.apiKey ?? "test-key";
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  get baseURL(): string {
    return this.#url;
  }
  get apiKey(): string {
    return this.#apiKey;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}/v1`;
    return this;
  }

  /** Replace the script; a list is consumed in order (an exhausted list answers "done."). */
  script(script: ReplyScript): this {
    this.#script = script;
    this.#served = 0;
    this.#generation++;
    return this;
  }

  reset(): this {
    this.requests.length = 0;
    return this.script([]);
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const generation = this.#generation;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (generation !== this.#generation) {
      return send(res, 503, { error: { message: "stale request from an earlier script", type: "stale" } });
    }
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      return send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: "not_found" } });
    }
    if (req.headers.authorization !== `Bearer ${this.#apiKey}`) {
      return send(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } });
    }
    let body: RecordedRequest["body"];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
    }
    const recorded: RecordedRequest = { body, headers: req.headers };
    this.requests.push(recorded);
    if (body.stream === true && this.streaming === "refuse") {
      return send(res, 400, { error: { message: "stream is not supported by this server", type: "invalid_request_error" } });
    }
    const index = this.#served++;
    const reply: ScriptedReply =
      typeof this.#script === "function" ? await this.#script(recorded, index) : (this.#script[index] ?? { content: "done." });
    if ("destroy" in reply) {
      req.socket.destroy();
      return;
    }
    if (reply.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, reply.delayMs);
        res.on("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (res.destroyed || res.writableEnded) return;
    }
    if ("raw" in reply) return typeof reply.raw === "string" ? sendText(res, reply.raw) : send(res, 200, reply.raw);
    if ("status" in reply) return send(res, reply.status, { error: { type: "api_error", code: null, ...reply.error } }, reply.headers);
    const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${index}_${i}`,
      type: "function",
      function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}) },
    }));
    const usage =
      reply.usage === null
        ? undefined
        : (reply.usage ?? { prompt_tokens: roughTokens(body.messages), completion_tokens: 5, total_tokens: roughTokens(body.messages) + 5 });
    const content = reply.content === undefined ? (toolCalls.length ? null : "ok") : reply.content;
    const finish = reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop");
    if (body.stream === true && this.streaming === "sse") {
      const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      return sendStream(res, body.model, content, toolCalls, finish, withUsage ? usage : undefined);
    }
    send(res, 200, {
      id: `chatcmpl-${index}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.content === undefined ? (toolCalls.length ? null : "ok") : reply.content,
            refusal: null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
        },
      ],
      ...(usage ? { usage } : {}),
    });
  }
}

function roughTokens(messages: unknown): number {
  return Math.ceil(JSON.stringify(messages ?? []).length / 4);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An SSE answer as OpenAI streams it: role, text in small pieces, tool calls in pieces, finish, usage, [DONE]. */
function sendStream(
  res: ServerResponse,
  model: string,
  content: string | null,
  toolCalls: Array<{ id: string; function: { name: string; arguments: string } }>,
  finish: string,
  usage: Record<string, unknown> | undefined,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`);
  chunk({ role: "assistant", content: "" });
  for (const piece of (content ?? "").match(/[\s\S]{1,4}/g) ?? []) chunk({ content: piece });
  toolCalls.forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of call.function.arguments.match(/[\s\S]{1,5}/g) ?? []) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, finish);
  if (usage) res.write(`data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", model, choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

function sendText(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "text/html" });
  res.end(text);
}
