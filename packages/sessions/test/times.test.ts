import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromLocomo, fromMiniSweAgent, fromOpenAIJsonl, readSessions, resolveDataDir } from "../src/index.js";
import { parseLocomoTime } from "../src/formats/locomo.js";

describe("recorded times: when each message was said", () => {
  it("a chat transcript: each message line's `at`; its compaction and context lines are not messages", () => {
    const lines = [
      { type: "session", id: "c1", startedAt: "2026-01-01T00:00:00.000Z", model: "m", engine: "lcm" },
      { type: "message", at: "2026-01-02T10:00:00.000Z", message: { role: "user", content: "first" } },
      { type: "message", at: "2026-01-02T10:05:00.000Z", message: { role: "assistant", content: "second" } },
      { type: "compaction", at: "2026-01-02T10:06:00.000Z", number: 1, trigger: "manual", removed: [], added: [] },
      { type: "context", at: "2026-01-02T10:06:00.000Z", messages: [{ role: "user", content: "summary" }] },
      { type: "message", message: { role: "user", content: "third, from an older transcript without a time" } },
    ];
    const [session] = fromOpenAIJsonl(lines.map((l) => JSON.stringify(l)).join("\n"), "c1.jsonl");
    expect(session!.messages.map((m) => m.content)).toEqual(["first", "second", "third, from an older transcript without a time"]);
    expect(session!.times).toEqual([Date.parse("2026-01-02T10:00:00.000Z"), Date.parse("2026-01-02T10:05:00.000Z"), null]);
  });

  it("LoCoMo: the session's date_time, read as written", () => {
    expect(parseLocomoTime("1:56 pm on 8 May, 2023")).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseLocomoTime("12:05 am on 21 January, 2024")).toBe(Date.UTC(2024, 0, 21, 0, 5));
    expect(parseLocomoTime("sometime last week")).toBeNull();
    const [s] = fromLocomo(
      [{ sample_id: "x", conversation: { speaker_a: "A", speaker_b: "B", session_1_date_time: "9:00 am on 2 June, 2023", session_1: [{ speaker: "A", dia_id: "D1:1", text: "hi" }, { speaker: "B", dia_id: "D1:2", text: "hello" }] }, qa: [] }],
      "l.json",
    );
    expect(s!.times).toEqual([Date.UTC(2023, 5, 2, 9, 0), Date.UTC(2023, 5, 2, 9, 0)]);
  });

  it("mini-swe-agent: an answer is dated by the provider's `created`; a recording without times has none", () => {
    const [s] = fromMiniSweAgent(
      {
        instance_id: "i",
        trajectory_format: "mini-swe-agent-1",
        info: {},
        messages: [
          { role: "system", content: "sys" },
          { role: "user", content: "task" },
          { role: "assistant", content: "done", extra: { response: { created: 1_763_511_722 } } },
        ],
      },
      "t.traj.json",
    );
    expect(s!.times).toEqual([null, null, 1_763_511_722_000]);
    const [plain] = fromOpenAIJsonl(JSON.stringify({ role: "user", content: "x" }), "p.jsonl");
    expect(plain!.times).toBeUndefined();
  });

  it("the real recordings that carry times give them for their messages", async () => {
    const dir = resolveDataDir();
    if (!dir) return;
    const [mini] = await readSessions(join(dir, "agent-traces", "mini-swe-agent-gemini3pro"), { limit: 1 });
    expect(mini!.times?.length).toBe(mini!.messages.length);
    expect(mini!.times!.filter((t) => t !== null).length).toBeGreaterThan(0);
    const [locomo] = await readSessions(join(dir, "locomo", "locomo7.json"), { limit: 1 });
    expect(locomo!.times!.every((t) => t !== null && t > Date.UTC(2000, 0, 1))).toBe(true);
  });
});
