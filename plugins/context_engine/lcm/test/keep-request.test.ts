import type { Message } from "@context-engine/core";
import { checkCompressResult, checkSelectionResult } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { isRequest, keepRequest, latestRequest } from "../src/assembly/keep-request.js";
import { CONTEXT_TAG } from "../src/assembly/render.js";

const system: Message = { role: "system", content: "You are a coding agent." };
const task: Message = { role: "user", content: "Fix the failing test in src/app.py:\n    def f(x):\n        return x" };
const block: Message = { role: "user", content: `${CONTEXT_TAG}\n<summary id="s1">earlier work</summary>\n</lcm_context>` };
const call: Message = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] } as Message;
const result: Message = { role: "tool", tool_call_id: "c1", content: "ok" } as Message;

describe("the latest request always reaches the model", () => {
  it("finds the newest user message that is not LCM's own", () => {
    expect(latestRequest([system, task, block, call, result])).toBe(task);
    expect(latestRequest([system, block])).toBeNull();
  });

  it("leaves a context that already holds the request unchanged", () => {
    const kept = keepRequest([system, block, task, call, result], task, 1);
    expect(kept.addedTokens).toBe(0);
    expect(kept.messages).toEqual([system, block, task, call, result]);
  });

  it("quotes a compacted request verbatim inside the context block, keeping tool pairs and one block", () => {
    const kept = keepRequest([system, block, call, result], task, 1);
    expect(kept.messages).toHaveLength(4);
    expect(kept.addedTokens).toBeGreaterThan(0);
    const text = kept.messages[1]!.content as string;
    expect(text.startsWith(CONTEXT_TAG)).toBe(true);
    expect(text.endsWith("</lcm_context>")).toBe(true);
    expect(text).toContain(task.content as string);
    expect(kept.messages.slice(2)).toEqual([call, result]);
    // What the host checks: the selection and the compress result both carry the turn's request.
    expect(checkSelectionResult(kept.messages, { request: [system, task, call, result], incoming: task }).ok).toBe(true);
    expect(checkCompressResult(kept.messages, { requiredUser: task }).ok).toBe(true);
  });

  it("adds a block of its own when no summary is shown, after the head and before the kept messages", () => {
    const kept = keepRequest([system, call, result], task, 1);
    expect(kept.messages[1]!.role).toBe("user");
    expect(kept.messages[1]!.content as string).toContain("return x");
    expect(kept.messages.slice(2)).toEqual([call, result]);
  });

  it("recognises the request so it is never shortened", () => {
    expect(isRequest({ ...task }, task)).toBe(true);
    expect(isRequest(block, task)).toBe(false);
  });
});
