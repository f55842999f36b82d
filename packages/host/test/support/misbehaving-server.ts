import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RequestBody {
  model: string;
  stream?: boolean;
  messages: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** How one request is answered; `later` schedules writes that stop when the client goes away. */
export type Behaviour = (res: ServerResponse, body: RequestBody, later: (fn: () => boolean, everyMs: number) => void) => void;

/**
 * An OpenAI-compatible endpoint on 127.0.0.1 that misbehaves on purpose: each
 * request takes the next planned behaviour, and once none is left it answers
 * "recovered" properly (SSE or JSON, as asked).
 */
export class MisbehavingServer {
  readonly requests: RequestBody[] = [];
  #plan: Behaviour[] = [];
  #server: Server = createServer((req, res) => void this.#handle(req, res));
  #timers = new Set<NodeJS.Timeout>();
  #url = "";

  get baseURL(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
    return this;
  }

  plan(...behaviours: Behaviour[]): this {
    this.#plan = behaviours;
    this.requests.length = 0;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RequestBody;
    this.requests.push(body);
    const behaviour = this.#plan.shift() ?? answer("recovered");
    const later = (fn: () => boolean, everyMs: number) => {
      const timer = setInterval(() => {
        if (res.destroyed || !fn()) stop();
      }, everyMs);
      const stop = () => {
        clearInterval(timer);
        this.#timers.delete(timer);
      };
      this.#timers.add(timer);
      res.on("close", stop);
    };
    behaviour(res, body, later);
  }
}

const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" };
export const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;

function completion(message: Record<string, unknown>, finishReason: string | null): string {
  return JSON.stringify({
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
    usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
  });
}

/** A proper answer with `text`, streamed when asked. */
export function answer(text: string): Behaviour {
  return (res, body) => {
    if (body.stream) {
      res.writeHead(200, sseHeaders);
      res.end(chunk({ role: "assistant", content: text }) + chunk({}, "stop") + "data: [DONE]\n\n");
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(completion({ content: text }, "stop"));
    }
  };
}

/** SSE `events` (already framed), then the body ends cleanly: no finish reason, no `[DONE]`. */
export function streamThenEnd(events: string): Behaviour {
  return (res) => {
    res.writeHead(200, sseHeaders);
    res.end(events);
  };
}

/** SSE `events`, then the connection is reset. */
export function streamThenReset(events: string): Behaviour {
  return (res) => {
    res.writeHead(200, sseHeaders);
    res.write(events, () => res.destroy());
  };
}

/** An answer holding a tool call, cut at the token limit (`finish_reason: "length"`), streamed when asked. */
export function toolCallAtTokenLimit(name: string, args: string): Behaviour {
  return (res, body) => {
    const call = { id: "call_cut", type: "function", function: { name, arguments: args } };
    if (body.stream) {
      res.writeHead(200, sseHeaders);
      res.end(chunk({ role: "assistant", tool_calls: [{ index: 0, ...call }] }) + chunk({}, "length") + "data: [DONE]\n\n");
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(completion({ content: null, tool_calls: [call] }, "length"));
    }
  };
}

/** Headers, then an SSE keep-alive comment every `everyMs`, for ever. */
export function keepAliveForever(everyMs: number): Behaviour {
  return (res, _body, later) => {
    res.writeHead(200, sseHeaders);
    later(() => res.write(": keep-alive\n\n") || true, everyMs);
  };
}

/** A proper (long) answer, one byte every `everyMs`, streamed or plain as asked. */
export function trickle(everyMs: number): Behaviour {
  return (res, body, later) => {
    const text = "a long answer, delivered very slowly. ".repeat(50);
    const whole = body.stream ? chunk({ role: "assistant", content: text }) + chunk({}, "stop") + "data: [DONE]\n\n" : completion({ content: text }, "stop");
    res.writeHead(200, body.stream ? sseHeaders : { "content-type": "application/json" });
    let at = 0;
    later(() => {
      res.write(whole.slice(at, at + 1));
      at++;
      return at < whole.length;
    }, everyMs);
  };
}
