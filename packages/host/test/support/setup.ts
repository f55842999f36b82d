import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Message } from "@context-engine/core";
import type { HostEvent } from "../../src/index.js";
import { AgentHost, createOpenAIChatModel } from "../../src/index.js";
import type { AgentHostOptions } from "../../src/index.js";
import { FakeOpenAIServer } from "./fake-openai-server.js";

export async function startServer(): Promise<FakeOpenAIServer> {
  return new FakeOpenAIServer().start();
}

/** One fake server per test file: started before its tests, reset before each, stopped after. */
export function useFakeServer(): FakeOpenAIServer {
  const server = new FakeOpenAIServer();
  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.reset();
  });
  return server;
}

/** A host wired to the fake server, collecting every event. */
export function makeHost(server: FakeOpenAIServer, options: Partial<AgentHostOptions> & Pick<AgentHostOptions, "engine">) {
  const events: HostEvent[] = [];
  const chatModel =
    options.chatModel ?? createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "test-model", retryBaseDelayMs: 1 });
  const host = new AgentHost({
    chatModel,
    ...options,
    config: { retryBaseDelayMs: 1, retryMaxDelayMs: 5, ...options.config },
    onEvent: (e) => events.push(e),
  });
  const ofType = <T extends HostEvent["type"]>(type: T) => events.filter((e): e is Extract<HostEvent, { type: T }> => e.type === type);
  return { host, events, ofType };
}

/** Twelve notes about deploy keys (one fact per service), as a session history to search and compact. */
export function deployKeyHistory(): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 12; i++) {
    out.push({ role: "user", content: `Note ${i}: the deploy key for service-${i} rotates every ${i + 2} days. ${"detail ".repeat(30)}` });
    out.push({ role: "assistant", content: `Recorded: service-${i} rotates its deploy key every ${i + 2} days.` });
  }
  return out;
}
