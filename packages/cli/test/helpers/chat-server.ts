import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: unknown; tool_calls?: unknown }>; tools?: Array<{ function: { name: string } }> };
}

type Reply = { status?: number; body: unknown };
/** Decide the reply to one request; return null for the default echo. */
export type Script = (req: RecordedRequest, index: number) => Reply | null;

export interface ChatServer {
  url: string;
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
export async function startChatServer(script: Script = () => null): Promise<ChatServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const recorded: RecordedRequest = { path: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(raw || "{}") };
    requests.push(recorded);
    const reply = script(recorded, requests.length - 1) ?? completion({ content: `echo: ${lastUserText(recorded).slice(0, 200)}` });
    res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
    res.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
