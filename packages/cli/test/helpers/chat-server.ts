import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: unknown; tool_calls?: unknown }>; tools?: Array<{ function: { name: string } }> };
}

type Reply =
  | { status?: number; body: unknown; /** Send the body as this raw text with this content type (non-JSON replies). */ raw?: { text: string; type: string } }
  /** Stream `text` then stall until the client goes away (a slow model; Ctrl-C tests). */
  | { stall: string };
/** Decide the reply to one request; return null for the default echo. */
export type Script = (req: RecordedRequest, index: number) => Reply | null;

export interface ChatServerOptions {
  /** How `stream: true` is answered: SSE chunks (default), a 400 refusal, or a plain JSON body. */
  streaming?: "sse" | "refuse" | "ignore";
  /** Pause between streamed chunks, so a watcher sees the text arrive. */
  chunkDelayMs?: number;
}

export interface ChatServer {
  url: string;
  /** Requests whose client went away before the answer ended (an aborted request). */
  aborted: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export function completion(message: Record<string, unknown>, usage = { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 }): Reply {
  return {
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "scripted-model",
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
      usage,
    },
  };
}

function lastUserText(req: RecordedRequest): string {
  const user = [...req.body.messages].reverse().find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

async function readBody(req: IncomingMessage): Promise<string> {
  let data = "";
  for await (const chunk of req) data += chunk;
  return data;
}

/**
 * A scripted OpenAI chat-completions server on 127.0.0.1: it records every
 * request and answers with the script's reply, or echoes the last user text.
 */
export async function startChatServer(script: Script = () => null, options: ChatServerOptions = {}): Promise<ChatServer> {
  const requests: RecordedRequest[] = [];
  let aborted = 0;
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const recorded: RecordedRequest = { path: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(raw || "{}") };
    requests.push(recorded);
    const streamed = (recorded.body as { stream?: boolean }).stream === true;
    if (streamed && options.streaming === "refuse") {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "streaming is not supported", type: "invalid_request_error" } }));
      return;
    }
    const reply = script(recorded, requests.length - 1) ?? completion({ content: `echo: ${lastUserText(recorded).slice(0, 200)}` });
    res.on("close", () => {
      if (!res.writableEnded) aborted++;
    });
    if ("stall" in reply) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sse({ choices: [{ index: 0, delta: { role: "assistant", content: reply.stall }, finish_reason: null }] }));
      return; // never ends: the client has to give up
    }
    if (reply.raw) {
      res.writeHead(reply.status ?? 200, { "content-type": reply.raw.type });
      res.end(reply.raw.text);
      return;
    }
    const status = reply.status ?? 200;
    if (!streamed || options.streaming === "ignore" || status !== 200) {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    await streamCompletion(res, reply.body as CompletionBody, options.chunkDelayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get aborted() {
      return aborted;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface CompletionBody {
  model?: string;
  choices: Array<{ message: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> }; finish_reason: string }>;
  usage?: unknown;
}

const sse = (chunk: unknown) => `data: ${JSON.stringify({ object: "chat.completion.chunk", ...(chunk as object) })}\n\n`;

/** A completion body as OpenAI streams it: text in small pieces, tool calls in pieces, finish, usage, [DONE]. */
async function streamCompletion(res: ServerResponse, body: CompletionBody, delayMs: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const pause = () => (delayMs > 0 ? new Promise((r) => setTimeout(r, delayMs)) : Promise.resolve());
  const choice = body.choices[0]!;
  const write = async (delta: Record<string, unknown>, finish: string | null = null) => {
    if (res.destroyed) return;
    res.write(sse({ model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] }));
    await pause();
  };
  await write({ role: "assistant", content: "" });
  for (const piece of (choice.message.content ?? "").match(/[\s\S]{1,6}/g) ?? []) await write({ content: piece });
  for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
    await write({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of call.function.arguments.match(/[\s\S]{1,8}/g) ?? []) await write({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  await write({}, choice.finish_reason);
  if (res.destroyed) return;
  if (body.usage) res.write(sse({ choices: [], usage: body.usage }));
  res.end("data: [DONE]\n\n");
}
