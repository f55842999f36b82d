// After a restart OpenClaw's preflight calls compact(force) before any assemble. OpenClaw's own
// classification decides whether the answer wedges the session ("Preflight compaction required but
// failed") or is a harmless skip: the adapter's answers must never be a failure.
import { compactContextEngineWithSafetyTimeout } from "openclaw/plugin-sdk/agent-harness-runtime";
import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine } from "../src/index.js";
import { RecordingEngine } from "../test/engines.js";
import { openclawInternal } from "./internal.js";

type Result = { ok: boolean; compacted: boolean; reason?: string };
const isBenign = await openclawInternal<(r: Result) => boolean>("compact-reasons", "isBenignCompactionSkipResult");
const params = { sessionId: "restart", sessionKey: "agent:main:restart", force: true, tokenBudget: 24_000, compactionTarget: "threshold", runtimeContext: { forceReason: "manual" } };
const preflight = { sessionId: "restart", sessionKey: "agent:main:restart", force: true, tokenBudget: 24_000, currentTokenCount: 11_000, runtimeContext: { forceReason: "preflight_required" } };

describe("compact before any assemble (a fresh OpenClaw process)", () => {
  it("an engine with nothing stored: a skip OpenClaw accepts, not a preflight failure", async () => {
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => new RecordingEngine() });
    const result = (await compactContextEngineWithSafetyTimeout(oc as never, params as never, 5_000)) as Result;
    expect(result.ok && result.compacted).toBe(false);
    expect(isBenign(result)).toBe(true);
  });

  it("OpenClaw's preflight below the model's threshold: a skip OpenClaw accepts", async () => {
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => new RecordingEngine() });
    await oc.commitTurn({ sessionId: "restart", advancementKey: "k", messages: [], runtimeContext: { tokenBudget: 24_000 } });
    const result = (await compactContextEngineWithSafetyTimeout(oc as never, preflight as never, 5_000)) as Result;
    expect(result.compacted).toBe(false);
    expect(isBenign(result)).toBe(true);
  });

  it("OpenClaw's preflight when the engine's result is invalid: a skip OpenClaw accepts, not a wedge", async () => {
    class Invalid extends RecordingEngine {
      override shouldCompress() {
        return true;
      }
      override compress() {
        const call = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }] };
        return [call, { role: "tool", tool_call_id: "call_1", content: "x" }, call, { role: "tool", tool_call_id: "call_1", content: "x" }] as Message[];
      }
    }
    const oc = createOpenClawContextEngine({ id: "invalid", factory: () => new Invalid() });
    await oc.assemble({ sessionId: "restart", sessionKey: "agent:main:restart", messages: [{ role: "user", content: "hello", timestamp: 1 }] as never, tokenBudget: 20_000 });
    const result = (await compactContextEngineWithSafetyTimeout(oc as never, preflight as never, 5_000)) as Result;
    expect(result.compacted).toBe(false);
    expect(isBenign(result)).toBe(true);
  });

  it("an engine with stored history: compacted", async () => {
    class Stored extends RecordingEngine {
      override compress(messages: Message[]) {
        return messages.length === 0 ? [{ role: "user", content: "summary of the stored history" } as Message] : messages;
      }
    }
    const oc = createOpenClawContextEngine({ id: "stored", factory: () => new Stored() });
    const result = (await compactContextEngineWithSafetyTimeout(oc as never, params as never, 5_000)) as Result;
    expect(result).toMatchObject({ ok: true, compacted: true });
  });
});
