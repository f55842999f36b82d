import { contentText, type CompressOptions, type Message, type SelectContextOptions, type TurnCompleteMeta } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

/**
 * Engines learn when each message was said (`messageTimes`), aligned with the list each hook gets:
 * the recorded time when the host was given one (`messageTime`, a replay), else the host's clock.
 */
const server = useFakeServer();

const RECORDED: Record<string, number> = { "from the recording": Date.UTC(2020, 0, 2, 3, 4), "recorded answer": Date.UTC(2020, 0, 2, 3, 5) };
const recordedTime = (m: Message) => RECORDED[contentText(m.content ?? "")] ?? null;

class TimesEngine extends SelectingEngine {
  optionsOf<T>(hook: string, at: number): T[] {
    return this.calls.filter((c) => c.hook === hook).map((c) => (c.args[at] ?? {}) as T);
  }
  listsOf(hook: string): Message[][] {
    return this.calls.filter((c) => c.hook === hook).map((c) => c.args[0] as Message[]);
  }
}

describe("messageTimes", () => {
  it("line up with every hook's list: recorded times where the host has them, its clock for new messages, null for the system prompt", async () => {
    server.script([{ content: "recorded answer" }, { content: "live answer" }]);
    const engine = new TimesEngine();
    engine.selectImpl = () => null;
    const { host } = makeHost(server, { engine, messageTime: recordedTime });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "be brief", history: [{ role: "user", content: "from the recording" }, { role: "assistant", content: "an old answer" }] });
    const before = Date.now();
    await session.send("a new question");
    await session.send("another");
    await session.idle();
    await session.compress();

    const turns = engine.optionsOf<TurnCompleteMeta>("onTurnComplete", 2);
    const lists = engine.listsOf("onTurnComplete");
    expect(turns).toHaveLength(2);
    turns.forEach((meta, i) => expect(meta.messageTimes).toHaveLength(lists[i]!.length));
    const last = turns.at(-1)!.messageTimes!;
    // system prompt, recorded history (one with a time, one without), then the turns' messages.
    expect(last.slice(0, 3)).toEqual([null, RECORDED["from the recording"], null]);
    expect(last[4]).toBe(RECORDED["recorded answer"]);
    for (const at of [last[3], ...last.slice(5)]) expect(at).toBeGreaterThanOrEqual(before);

    const selections = engine.optionsOf<SelectContextOptions>("selectContext", 1);
    const selected = engine.listsOf("selectContext");
    expect(selections.length).toBeGreaterThan(0);
    selections.forEach((o, i) => expect(o.messageTimes).toHaveLength(selected[i]!.length));
    const compress = engine.optionsOf<CompressOptions>("compress", 1).at(-1)!;
    expect(compress.messageTimes).toEqual(last);
  });

  it("a recorded-time lookup that throws costs the time, never the turn", async () => {
    server.script([{ content: "ok" }]);
    const engine = new TimesEngine();
    const { host } = makeHost(server, {
      engine,
      messageTime: () => {
        throw new Error("lookup broke");
      },
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("hi");
    await session.idle();
    expect(result.status).toBe("completed");
    const meta = engine.optionsOf<TurnCompleteMeta>("onTurnComplete", 2)[0]!;
    expect(meta.messageTimes!.every((t) => typeof t === "number")).toBe(true);
  });
});
