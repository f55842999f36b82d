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

  it("leaves requests under the window byte-identical (the compressor selects only over the window)", async () => {
    server.script(() => ({ content: "ok" }));
    const engine = new ContextCompressor({ contextLength: 200_000, model: "test-model" });
    const { host, ofType } = makeHost(server, { engine });
    const history = codingSession(3);
    const session = await host.openSession({ model: "test-model", contextLength: 200_000, history });
    await session.send("hi");
    expect(server.requests[0]!.body.messages).toEqual([...history, { role: "user", content: "hi" }]);
    // The compressor's selectContext is a safety net for requests over the window: here it returns null.
    expect(ofType("provider.request")[0]!.selection).toBe("ignored");
  });
});
