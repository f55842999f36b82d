import { checkConversation } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { afterAll, describe, expect, it } from "vitest";
import type { HostEvent } from "../src/index.js";
import { AgentHost, createOpenAIChatModel } from "../src/index.js";
import type { Fault, FaultKind } from "./support/fault-engine.js";
import { FaultEngine, LIST_GARBAGE, SYSTEM_GARBAGE, VALUE_GARBAGE } from "./support/fault-engine.js";
import type { RecordedRequest } from "./support/fake-openai-server.js";
import { useFakeServer } from "./support/setup.js";

/**
 * Every engine hook × {throw, never settles, each kind of garbage, in-place
 * mutation}, through the real host and the loopback OpenAI server. Each case
 * checks that every request the provider got is a valid conversation with
 * the host's system prompt and the turn's user message, that the persisted
 * conversation matches a run with a well-behaved engine, and that the next
 * turn, /compress, /status, /reset and end all still work.
 */

const server = useFakeServer();
const SYSTEM = "You are the fault-matrix agent.";
const BOUND_MS = 30;

const ASYNC_HOOKS = ["selectContext", "compress", "onTurnComplete", "handleToolCall", "onSessionStart", "onSessionEnd", "onSessionReset", "updateModel", "shouldCompressPreflight", "pruneToolResultsOnly"];
const SYNC_HOOKS = ["updateFromResponse", "shouldCompress", "shouldCompressInfo", "hasContentToCompress", "getStatus", "getToolSchemas"];
const MUTATING_HOOKS = new Set(["selectContext", "compress", "onTurnComplete", "handleToolCall", "onSessionEnd", "shouldCompressPreflight", "hasContentToCompress", "pruneToolResultsOnly", "updateFromResponse"]);
const LIST_HOOKS = new Set(["selectContext", "compress", "pruneToolResultsOnly"]);

function kindsFor(hook: string): FaultKind[] {
  const kinds: FaultKind[] = ["throw"];
  if (ASYNC_HOOKS.includes(hook)) kinds.push("hang");
  if (MUTATING_HOOKS.has(hook)) kinds.push("mutate");
  let garbage = LIST_HOOKS.has(hook) ? Object.keys(LIST_GARBAGE) : Object.keys(VALUE_GARBAGE);
  // A routed selection may drop the turn's message: a valid replacement, not garbage (tested in selection.test.ts).
  if (hook === "selectContext") garbage = garbage.filter((g) => g !== "missing_user");
  if (hook === "selectContext") garbage.push(...Object.keys(SYSTEM_GARBAGE));
  for (const g of garbage) kinds.push(`garbage:${g}`);
  return kinds;
}

const cases: Fault[] = [...ASYNC_HOOKS, ...SYNC_HOOKS].flatMap((hook) => kindsFor(hook).map((kind) => ({ hook, kind })));

// Hooks that run only inside a tool loop, or only when compression is due.
const needsTool = (f: Fault) => ["handleToolCall", "pruneToolResultsOnly"].includes(f.hook);
const needsCompress = (f: Fault) => ["compress", "shouldCompressInfo"].includes(f.hook);

interface Run {
  requests: RecordedRequest[];
  /** The persisted conversation after turn 1 and after turn 2. */
  persisted: Message[][];
  events: HostEvent[];
  texts: string[];
}

interface Shape {
  tool: boolean;
  compress: boolean;
}

async function runScenario(fault: Fault | null, shape: Shape): Promise<Run> {
  const engine = new FaultEngine();
  engine.wantCompress = shape.compress;
  const tool = shape.tool;
  const events: HostEvent[] = [];
  const start = server.requests.length;
  server.script((request, index) => {
    const last = request.body.messages.at(-1);
    if (tool && last?.role === "user") return { toolCalls: [{ id: `call_${index}`, name: "ctx_probe", arguments: {} }], usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 } };
    return { content: `answer ${index}`, usage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 } };
  });
  const bounds = Object.fromEntries(ASYNC_HOOKS.filter((h) => h !== "compress").map((h) => [h, BOUND_MS]));
  const host = new AgentHost({
    engine,
    chatModel: createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "test-model", retryBaseDelayMs: 1 }),
    config: { retryBaseDelayMs: 1, retryMaxDelayMs: 5, contextTimeoutSeconds: BOUND_MS / 1000, hookTimeouts: bounds },
    onEvent: (e) => events.push(e),
  });
  engine.fault = fault;
  const session = await host.openSession({ model: "test-model", contextLength: 100_000, systemPrompt: SYSTEM });
  const persisted: Message[][] = [];
  const texts: string[] = [];
  for (const question of ["first question", "second question"]) {
    const result = await session.send(question);
    expect(result.status, `${question}: ${result.exitReason} ${result.error?.message ?? ""}`).toBe("completed");
    texts.push(result.text);
    persisted.push(structuredClone(session.messages) as Message[]);
  }
  await session.compress();
  session.status();
  await session.reset();
  const third = await session.send("third question");
  expect(third.status).toBe("completed");
  await session.end();
  await host.close();
  return { requests: server.requests.slice(start), persisted, events, texts };
}

function expectValidRequests(run: Run): void {
  expect(run.requests.length).toBeGreaterThan(0);
  for (const request of run.requests) {
    const messages = request.body.messages;
    expect(checkConversation(messages), JSON.stringify(messages)).toEqual([]);
    expect(messages[0]).toEqual({ role: "system", content: SYSTEM });
    expect(messages.filter((m) => m.role === "system")).toHaveLength(1);
    const users = messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users.some((c) => typeof c === "string" && c.endsWith("question"))).toBe(true);
  }
  // The request of each turn holds that turn's user message, unedited.
  for (const question of ["first question", "second question", "third question"]) {
    expect(run.requests.some((r) => r.body.messages.at(-1)?.content === question || r.body.messages.some((m) => m.role === "user" && m.content === question))).toBe(true);
  }
}

const references = new Map<string, Run>();
/** The same scenario with a well-behaved engine (run once per shape). */
async function reference(fault: Fault): Promise<Run> {
  const shape = { tool: needsTool(fault), compress: needsCompress(fault) };
  const key = JSON.stringify(shape);
  let run = references.get(key);
  if (!run) references.set(key, (run = await runScenario(null, shape)));
  return run;
}

let failures = 0;
afterAll(() => {
  console.log(`fault matrix: ${cases.length} cases, ${failures} failures`);
});

describe("fault matrix: every hook × every fault", () => {
  it.each(cases.map((c) => [`${c.hook} ${c.kind}`, c] as const))("%s", async (_label, fault) => {
    try {
      const ref = await reference(fault);
      const run = await runScenario(fault, { tool: needsTool(fault), compress: needsCompress(fault) });
      expectValidRequests(run);
      // Fail-open: the persisted conversation is what a well-behaved engine leaves.
      if (fault.hook === "handleToolCall" || fault.hook === "getToolSchemas") {
        expect(run.persisted.map((list) => list.map((m) => m.role))).toEqual(ref.persisted.map((list) => list.map((m) => m.role)).slice(0, run.persisted.length));
        for (const list of run.persisted) expect(list.filter((m) => m.role === "user").map((m) => m.content)).toEqual(expect.arrayContaining(["first question"]));
      } else {
        expect(run.persisted).toEqual(ref.persisted);
        expect(run.texts).toEqual(ref.texts);
      }
      if (fault.kind === "hang" && fault.hook !== "compress") {
        expect(run.events.some((e) => e.type === "hook.failed" && e.hook === fault.hook && e.reason === "timeout")).toBe(true);
      }
      if (fault.kind.startsWith("garbage:") && (fault.hook === "selectContext" || fault.hook === "compress")) {
        expect(run.events.some((e) => e.type === "hook.failed" && e.hook === fault.hook && e.reason === "invalid_result")).toBe(true);
      }
    } catch (error) {
      failures++;
      throw error;
    }
  });
});
