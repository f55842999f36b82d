import { ContextCompressor, isSummaryMessage } from "@context-engine/compressor";
import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../src/index.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

/** A coding-agent style conversation: requests, tool calls on files, results. */
function codingSession(steps: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < steps; i++) {
    out.push({ role: "user", content: `Step ${i}: fix the failing test in src/module_${i}.ts ${"context ".repeat(40)}` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/module_${i}.ts` }) } }],
    });
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: `export function f${i}() { return ${i}; }\n${"// filler line\n".repeat(60)}` });
    out.push({ role: "assistant", content: `Fixed module_${i}: f${i} now returns ${i}.` });
  }
  return out;
}


describe("driving the built-in compressor", () => {
  it("compacts a long session with a model summary and keeps the conversation valid", async () => {
    server.script((req) => {
      if (req.body.model === "summary-model") {
        return { content: "## Goal\nFix failing tests across src/module_*.ts\n## Progress\nmodule_0..module_11 fixed\n## Next Steps\ncontinue" };
      }
      return { content: "Continuing with the next module." };
    });
    const summaryModel = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "summary-model", maxRetries: 0 });
    const engine = new ContextCompressor({ contextLength: 20_000, model: "test-model", chatModel: summaryModel, config: { threshold: 0.5, summary_model: "summary-model" } });
    const { host, ofType } = makeHost(server, { engine, tools: [{ name: "read_file", parameters: { type: "object" } }], executeTool: () => "ok" });
    const session = await host.openSession({ model: "test-model", contextLength: 20_000, systemPrompt: "You are a coding agent.", history: codingSession(36) });
    const before = session.messages.length;
    const result = await session.send("Now run the whole test suite.");
    expect(result.status).toBe("completed");
    const committed = ofType("compaction.committed");
    expect(committed.length).toBeGreaterThanOrEqual(1);
    expect(committed[0]!.tokensAfter).toBeLessThan(committed[0]!.tokensBefore);
    expect(session.messages.length).toBeLessThan(before);
    expect(session.messages.some((m) => isSummaryMessage(m))).toBe(true);
    // The agent request after compaction carries the summary and the live request.
    const agentRequests = server.requests.filter((r) => r.body.model === "test-model");
    const sent = agentRequests.at(-1)!.body.messages;
    expect(JSON.stringify(sent)).toContain("Fix failing tests");
    expect(JSON.stringify(sent)).toContain("Now run the whole test suite.");
    expect(agentRequests.at(-1)!.body.model).toBe("test-model");
    expect(server.requests.some((r) => r.body.model === "summary-model")).toBe(true);
    expect(engine.getStatus().compressionCount).toBeGreaterThanOrEqual(1);
  });

  it("falls back to an extractive summary without a summary model, and /compress works", async () => {
    server.script(() => ({ content: "ok" }));
    const engine = new ContextCompressor({ contextLength: 200_000, model: "test-model" });
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 200_000, history: codingSession(12) });
    const result = await session.compress("module_3");
    expect(result.status).toBe("committed");
    expect(ofType("compaction.committed")[0]!.trigger).toBe("manual");
    expect(session.messages.some((m) => isSummaryMessage(m))).toBe(true);
    const reply = await session.send("what next?");
    expect(reply.status).toBe("completed");
    // Only the agent request went out: no summary model was configured.
    expect(server.requests).toHaveLength(1);
  });

  it("inherits the no-op selectContext and onTurnComplete: requests are byte-identical and the hooks never run", async () => {
    server.script(() => ({ content: "ok" }));
    const engine = new ContextCompressor({ contextLength: 200_000, model: "test-model" });
    const { host, ofType } = makeHost(server, { engine });
    const history = codingSession(3);
    const session = await host.openSession({ model: "test-model", contextLength: 200_000, history });
    await session.send("hi");
    expect(server.requests[0]!.body.messages).toEqual([...history, { role: "user", content: "hi" }]);
    expect(ofType("provider.request")[0]!.selection).toBe("not_implemented");
    expect(ofType("selection.applied")).toHaveLength(0);
    expect(ofType("selection.ignored")).toHaveLength(0);
  });

  it("a request larger than the window is fitted by the forced compaction (its start and end kept), and the turn completes", async () => {
    server.script(() => ({ content: "ok" }));
    const engine = new ContextCompressor({ contextLength: 8_000, model: "test-model" });
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8_000, systemPrompt: "sys", history: codingSession(3) });
    const paste = `PASTE-START ${"log line ".repeat(8_000)} PASTE-END`;
    const result = await session.send(paste);
    expect(result.status).toBe("completed");
    expect(ofType("compaction.committed").length).toBeGreaterThan(0);
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(sent).toContain("PASTE-START");
    expect(sent).toContain("PASTE-END");
    expect(sent.length).toBeLessThan(paste.length);
    // What was sent is what the session keeps.
    expect(session.messages.slice(0, -1)).toEqual(server.requests.at(-1)!.body.messages);
  });
});

describe("an over-window request once the turn's compaction attempts are spent", () => {
  it("still gets its one forced pass, fitted by the compressor's compress, and the turn completes", async () => {
    server.script([
      { toolCalls: [{ name: "read_file", arguments: { path: "big.log" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "bigger.log" } }] },
      { content: "done" },
    ]);
    const engine = new ContextCompressor({ contextLength: 8_000, model: "test-model" });
    const bigOutput = (tag: string) => `${tag}-START\n${"log line with some detail\n".repeat(900)}${tag}-END`;
    let call = 0;
    const { host, ofType } = makeHost(server, {
      engine,
      tools: [{ name: "read_file", parameters: { type: "object" } }],
      executeTool: () => bigOutput(`OUT${call++}`),
      config: { maxCompressionAttempts: 1 },
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8_000, systemPrompt: "sys", history: codingSession(8) });
    const result = await session.send("Read the logs and tell me what failed.");
    expect(result.status).toBe("completed");
    const triggers = ofType("compaction.committed").map((e) => e.trigger);
    // The one automatic attempt went first; the over-window pass came after it anyway.
    expect(triggers.filter((t) => t !== "over_window").length).toBeLessThanOrEqual(1);
    expect(triggers).toContain("over_window");
    expect(ofType("request.over_budget")).toHaveLength(0);
    for (const r of server.requests) expect(JSON.stringify(r.body.messages).length / 4).toBeLessThan(8_000);
    // The compressor inherits the no-op selectContext: what was sent is what the session keeps.
    expect(ofType("provider.request").every((e) => e.selection === "not_implemented")).toBe(true);
    expect(session.messages.slice(0, -1)).toEqual(server.requests.at(-1)!.body.messages);
  });
});
