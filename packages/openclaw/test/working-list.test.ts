import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { adoptView, overlapOf, workingList } from "../src/assemble.js";
import { toOpenAiMessages } from "../src/convert-to-openai.js";
import type { SessionEntry } from "../src/sessions.js";
import type { OcAgentMessage } from "../src/openclaw-types.js";

const u = (text: string): Message => ({ role: "user", content: text });
const a = (text: string): Message => ({ role: "assistant", content: text });
// OpenClaw's own message shapes for the same turns.
const ocUser = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 }) as unknown as OcAgentMessage;
const ocAssistant = (text: string) =>
  ({ role: "assistant", content: [{ type: "text", text }], api: "openai-completions", provider: "p", model: "m", stopReason: "stop", timestamp: 1, usage: {} }) as unknown as OcAgentMessage;

function entry(): SessionEntry {
  return { view: null, coveredCount: 0, coveredFingerprint: "", outputs: [] } as unknown as SessionEntry;
}

describe("the working list: the engine's view, then what the host added after what it covers", () => {
  it("overlapOf finds the longest end of the view that starts what follows", () => {
    expect(overlapOf([u("a"), a("b"), u("c")], [u("c"), a("d")])).toBe(1);
    expect(overlapOf([u("a"), a("b")], [u("a"), a("b"), u("c")])).toBe(2);
    expect(overlapOf([u("a"), a("b")], [u("c")])).toBe(0);
    expect(overlapOf([], [u("c")])).toBe(0);
  });

  it("a view assembled from a shared store that already holds the host's next turn has it once", () => {
    const e = entry();
    const host = [ocUser("u1"), ocAssistant("a1")];
    const { hostConverted } = workingList(e, host);
    // The engine's stored history (a summary note, then turns 2 and 3, committed before this process's
    // transcript showed turn 3) stands for the host's two messages.
    const note = u("<lcm_context>summary of turn 1</lcm_context>");
    const next = [...host, ocUser("u2"), ocAssistant("a2"), ocUser("u3"), ocAssistant("a3"), ocUser("u4")];
    // The store gives back what the adapter handed it: OpenClaw's messages converted.
    const stored = toOpenAiMessages(next).messages;
    const view = [note, ...stored.slice(2, 6)];
    adoptView(e, view, hostConverted);
    const { working } = workingList(e, next);
    const texts = working.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    expect(texts.filter((t) => t.includes("u3"))).toHaveLength(1);
    expect(texts.filter((t) => t.includes("a3"))).toHaveLength(1);
    expect(texts.at(-1)).toContain("u4");
  });
});

describe("a view that shows a long message shortened (LCM: head, tail and a pointer) still overlaps it", () => {
  const long = (tag: string) => `${tag}. ${"the harbour master logged the tides and the weather of the day ".repeat(60)}`;
  const shortened = (m: Message): Message => {
    const text = typeof m.content === "string" ? m.content : (m.content as { text: string }[]).map((p) => p.text).join("\n");
    return { ...m, content: `${text.slice(0, 600)}\n[… omitted …]\n${text.slice(-300)}\n[lcm:shortened msg_9 (#9), 900 tokens]` } as Message;
  };

  it("standsFor: a shortened copy of a long message, not of another long message or a short one", async () => {
    const { standsFor } = await import("../src/assemble.js");
    const [m7] = toOpenAiMessages([ocUser(long("Remember fact-7"))]).messages;
    const [m6] = toOpenAiMessages([ocUser(long("Remember fact-6"))]).messages;
    expect(standsFor(shortened(m7!), m7!)).toBe(true);
    expect(standsFor(shortened(m7!), m6!)).toBe(false);
    expect(standsFor(u("ok"), u("ok!"))).toBe(false);
    expect(standsFor(a(long("Remember fact-7")), m7!)).toBe(false);
  });

  it("the previous turn, shown shortened at the end of the engine's view, goes into the working list once", () => {
    const e = entry();
    const earlier = [ocUser(long("Remember fact-5")), ocAssistant("Noted 5"), ocUser(long("Remember fact-6")), ocAssistant("Noted 6")];
    const { hostConverted } = workingList(e, earlier);
    const turn7 = [ocUser(long("Remember fact-7")), ocAssistant("Noted 7")];
    const [u7, a7] = toOpenAiMessages(turn7).messages;
    // The engine's view from its store: a note for turns 5-6, then turn 7 (committed since), its user message shortened.
    adoptView(e, [u("<lcm_context>turns 5 and 6</lcm_context>"), shortened(u7!), a7!], hostConverted);
    const { working } = workingList(e, [...earlier, ...turn7, ocUser("Which facts?")]);
    const text = working.map((m) => JSON.stringify(m.content));
    expect(text.filter((t) => t.includes("Remember fact-7"))).toHaveLength(1);
    expect(text.filter((t) => t.includes("Noted 7"))).toHaveLength(1);
    expect(text.at(-1)).toContain("Which facts?");
  });
});
