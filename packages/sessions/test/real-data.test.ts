import { join } from "node:path";
import { checkConversation } from "@context-engine/core";
import { beforeAll, describe, expect, it } from "vitest";
import { readSessions, resolveDataDir, splitTurns, type RecordedSession } from "../src/index.js";

const dataDir = resolveDataDir();
if (!dataDir) {
  console.warn("[sessions] SKIPPED real-data tests: no shared/data found (set CONTEXT_ENGINE_DATA_DIR)");
}

describe.skipIf(!dataDir)("real data in shared/data", () => {
  let all: RecordedSession[] = [];
  beforeAll(async () => {
    all = await readSessions(dataDir!);
  });

  it("reads every session of every format", () => {
    const count = (f: string) => all.filter((s) => s.format === f).length;
    expect(count("mini-swe-agent")).toBe(10);
    expect(count("swe-agent")).toBe(1);
    expect(count("openhands")).toBe(5);
    expect(count("tau-bench")).toBe(200);
    expect(count("locomo")).toBe(7);
    expect(new Set(all.map((s) => `${s.format}:${s.id}`)).size).toBe(all.length);
  });

  it("produces valid OpenAI conversations (only a trailing in-flight call may lack its result)", () => {
    for (const s of all) {
      expect(checkConversation(s.messages, { allowTrailingInFlightCall: true }), `${s.format} ${s.id}`).toEqual([]);
    }
  });

  it("records licence and origin for each file", () => {
    for (const s of all) {
      expect(s.source.license, s.source.path).toBeTruthy();
      expect(s.source.origin, s.source.path).toMatch(/@[0-9a-f]{40}:/);
    }
    expect(all.find((s) => s.format === "locomo")!.source.license).toBe("CC-BY-NC-4.0");
  });

  it("mini-swe-agent: one bash call per action, real usage per assistant message", () => {
    const s = all.find((x) => x.id === "psf__requests-6028")!;
    expect(s.messages).toHaveLength(100);
    const assistants = s.messages.filter((m) => m.role === "assistant");
    expect(s.usage).toHaveLength(assistants.length);
    expect(s.usage!.every((u) => u !== null && u.prompt_tokens > 0)).toBe(true);
    const toolResults = s.messages.filter((m) => m.role === "tool");
    expect(toolResults.length).toBeGreaterThan(40);
    expect(toolResults.some((m) => String(m.content).startsWith("Please always provide"))).toBe(false);
    // The session ends with the submitted diff as the result of the final command.
    expect(String(s.messages.at(-1)!.content)).toMatch(/^diff --git/);
  });

  it("SWE-agent: reused demo ids are renamed, results follow their calls", () => {
    const s = all.find((x) => x.format === "swe-agent")!;
    expect(s.messages).toHaveLength(24);
    expect(s.repairs!.length).toBeGreaterThan(0);
  });

  it("OpenHands: no null values remain, tools kept", () => {
    for (const s of all.filter((x) => x.format === "openhands")) {
      expect(JSON.stringify(s.messages)).not.toContain(":null");
      expect(s.tools!.map((t) => (t.function as { name: string }).name)).toContain("execute_bash");
    }
  });

  it("LoCoMo: every message carries name and dia_id", () => {
    const s = all.find((x) => x.id === "conv-26")!;
    expect(s.messages).toHaveLength(419);
    for (const m of s.messages) {
      const meta = (m as { metadata?: { dia_id?: string } }).metadata;
      expect(meta?.dia_id).toMatch(/^D\d+:\d+$/);
      expect((m as { name?: string }).name).toMatch(/^(Caroline|Melanie)$/);
    }
  });

  it("splitTurns covers every message after the preamble", () => {
    for (const s of all.slice(0, 20)) {
      const turns = splitTurns(s.messages);
      const covered = turns.reduce((n, t) => n + 1 + t.steps.length, 0);
      const firstUser = s.messages.findIndex((m) => m.role === "user");
      expect(covered).toBe(s.messages.length - firstUser);
    }
  });

  it("reads a single file and honours limit", async () => {
    const one = await readSessions(join(dataDir!, "agent-traces/tau-bench/gpt-4o-airline.json"), { limit: 3 });
    expect(one.map((s) => s.id)).toEqual(["task-0-trial-0", "task-1-trial-0", "task-2-trial-0"]);
  });
});
