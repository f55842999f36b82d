import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, HumanMessage } from "langchain";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { checkConversation } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { ContextCompressor, isSummaryMessage } from "@context-engine/compressor";
import { LcmEngine } from "@context-engine/lcm";
import { contextEngineMiddleware, fromOpenAIMessage, toOpenAIMessages } from "../src/index.js";
import type { AdapterEvent } from "../src/index.js";
import { answer, fakeModel, toolCallAnswer } from "./helpers.js";

/** A tool-heavy history: every turn a request with a canary, one tool round, an answer. */
function history(turns: number): BaseMessage[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `Turn ${t}: fix CANARY_${t} in src/mod${t}.ts; ${"detail ".repeat(30)}` });
    out.push({ role: "assistant", content: "", tool_calls: [{ id: `h_${t}`, type: "function", function: { name: "bash", arguments: JSON.stringify({ cmd: `cat src/mod${t}.ts` }) } }] });
    out.push({ role: "tool", tool_call_id: `h_${t}`, content: `export const v${t} = ${t}; ${"code ".repeat(60)}` });
    out.push({ role: "assistant", content: `Fixed CANARY_${t}.` });
  }
  return out.map(fromOpenAIMessage);
}

const probe = tool(async () => "probe ok", { name: "probe", description: "probe", schema: { type: "object", properties: {} } });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A step over the threshold, a tool round, then compaction must commit before the second model call. */
async function runOverThreshold(middleware: ReturnType<typeof contextEngineMiddleware>, extraCalls: Array<{ id: string; name: string; args: Record<string, unknown> }> = []) {
  const model = fakeModel()
    .respond(toolCallAnswerWithUsage())
    .respond(extraCalls.length ? toolCallAnswer(extraCalls) : answer("done"))
    .respond(answer("done"));
  const agent = createAgent({ model, systemPrompt: "You are a careful coding agent.", tools: [probe], middleware: [middleware] });
  const out = await agent.invoke({ messages: [...history(30), new HumanMessage("Now fix CANARY_FINAL please")] }, { configurable: { thread_id: "bundled" } });
  return { out, model };
}

function toolCallAnswerWithUsage() {
  const m = toolCallAnswer([{ id: "live_1", name: "probe", args: {} }]);
  m.usage_metadata = { input_tokens: 7_500, output_tokens: 10, total_tokens: 7_510 };
  return m;
}

describe("bundled engines inside createAgent", () => {
  it("ContextCompressor: compaction commits, the model sees the summary with intact tool pairs", async () => {
    const events: AdapterEvent[] = [];
    const engine = new ContextCompressor({ contextLength: 8_000, config: { protect_first_n: 0, protect_last_n: 4 } });
    const middleware = contextEngineMiddleware({ engine, contextLength: 8_000, onEvent: (e) => events.push(e) });
    const { out, model } = await runOverThreshold(middleware);
    expect(events.filter((e) => e.type === "compaction.committed")).toHaveLength(1);
    const before = toOpenAIMessages(model.calls[0]!.messages);
    const after = toOpenAIMessages(model.calls[1]!.messages);
    expect(after.length).toBeLessThan(before.length);
    expect(checkConversation(after)).toEqual([]);
    expect(after.some((m) => isSummaryMessage(m))).toBe(true);
    expect(after.map((m) => JSON.stringify(m.content)).join(" ")).toContain("CANARY_FINAL");
    // The agent state holds the compacted history (no system prompt copy), then the answer.
    expect(toOpenAIMessages(out.messages.slice(0, -1))).toEqual(after.slice(1));
    expect(out.messages.at(-1)?.content).toBe("done");
    expect(engine.compressionCount).toBe(1);
  });

  it("LcmEngine: compaction commits, summaries in context, and lcm_grep finds a compacted canary", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "lc-adapter-lcm-"));
    dirs.push(dataDir);
    const events: AdapterEvent[] = [];
    const engine = new LcmEngine({ dataDir, contextLength: 8_000, config: { fresh_tail_count: 8, leaf_chunk_tokens: 1_000 } });
    try {
      const middleware = contextEngineMiddleware({ engine, contextLength: 8_000, onEvent: (e) => events.push(e) });
      const { out, model } = await runOverThreshold(middleware, [{ id: "grep_1", name: "lcm_grep", args: { query: "CANARY_3" } }]);
      expect(events.filter((e) => e.type === "compaction.committed")).toHaveLength(1);
      const before = toOpenAIMessages(model.calls[0]!.messages);
      const after = toOpenAIMessages(model.calls[1]!.messages);
      expect(after.length).toBeLessThan(before.length);
      expect(checkConversation(after)).toEqual([]);
      const grep = out.messages.find((m) => m.type === "tool" && (m as { tool_call_id?: string }).tool_call_id === "grep_1");
      expect(String(grep?.content)).toContain("CANARY_3");
      expect(events.filter((e) => e.type.endsWith("failed") || (e.type === "selection.ignored" && e.failed))).toEqual([]);
    } finally {
      engine.close();
    }
  });
});
