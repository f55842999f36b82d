import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LcmEngine } from "@context-engine/lcm";
import { describe, expect, it } from "vitest";
import { replay } from "../src/driver.js";
import { readLocomo, sessionTime } from "../src/locomo-data.js";

describe("LoCoMo session times", () => {
  it("reads a session date as UTC, and nothing from an unreadable one", () => {
    expect(sessionTime("1:56 pm on 8 May, 2023")).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(sessionTime("12:10 am on 11 August, 2023")).toBe(Date.UTC(2023, 7, 11, 0, 10));
    expect(sessionTime("12:30 pm on 1 June 2022")).toBe(Date.UTC(2022, 5, 1, 12, 30));
    expect(sessionTime("sometime in May")).toBeNull();
    expect(sessionTime(undefined)).toBeNull();
  });

  it("the replay passes them as messageTimes the way a host does, and LCM stores them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ce-eval-times-"));
    const file = join(dir, "locomo.json");
    writeFileSync(
      file,
      JSON.stringify([
        {
          sample_id: "t1",
          conversation: {
            speaker_a: "Ann",
            speaker_b: "Bo",
            session_1_date_time: "1:56 pm on 8 May, 2023",
            session_1: [
              { speaker: "Ann", dia_id: "D1:1", text: "I planted tomatoes" },
              { speaker: "Bo", dia_id: "D1:2", text: "nice" },
            ],
            session_2: [{ speaker: "Ann", dia_id: "D2:1", text: "they grew" }],
          },
          qa: [],
        },
      ]),
    );
    const [conv] = readLocomo(file);
    expect(conv!.turns.map((t) => t.saidAt)).toEqual([Date.UTC(2023, 4, 8, 13, 56), Date.UTC(2023, 4, 8, 13, 56, 1), null]);
    const engine = new LcmEngine({ dataDir: dir, config: { prepare_in_background: false } });
    try {
      await replay({ engine, sessionId: "s", messages: conv!.turns.map((t) => t.message), times: conv!.turns.map((t) => t.saidAt) });
      const store = await engine.openStore();
      const stored = await store.getMessages((await store.findConversation("s"))!.id);
      expect(stored.slice(0, 2).map((m) => m.createdAt)).toEqual([Date.UTC(2023, 4, 8, 13, 56), Date.UTC(2023, 4, 8, 13, 56, 1)]);
      expect(stored).toHaveLength(3);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
