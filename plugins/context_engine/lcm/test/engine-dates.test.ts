import { afterEach, describe, expect, it } from "vitest";
import { DATED_MESSAGES, DATED_TIMES, JULY_PAINT_SEQ } from "./dated-fixture.js";
import { makeEngine } from "./engine-setup.js";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

describe("lcm_grep reads a date in the query as message time", () => {
  it("through handleToolCall: the host's messageTimes date the messages, and the tool ranks the ones said then first", async () => {
    const { engine, cleanup } = makeEngine();
    cleanups.push(cleanup);
    await engine.onTurnComplete(DATED_MESSAGES, null, { sessionId: "s", messageTimes: DATED_TIMES });
    const ask = async (query: string) => JSON.parse(await engine.handleToolCall("lcm_grep", { query }, { sessionId: "s" })) as { hits: Array<{ seq: number }>; notes: string[] };
    const words = await ask("paint fence");
    expect(words.hits[0]!.seq).not.toBe(JULY_PAINT_SEQ);
    const dated = await ask("paint fence July 2023");
    expect(dated.hits[0]!.seq).toBe(JULY_PAINT_SEQ);
    expect(dated.hits.map((h) => h.seq).sort()).toEqual([0, 1, 2, 3]);
    expect(dated.notes.join(" ")).toContain("dates in the query");
    const iso = await ask("paint fence 2023-07-15");
    expect(iso.hits[0]!.seq).toBe(JULY_PAINT_SEQ);
  });
});
