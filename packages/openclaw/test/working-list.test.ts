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
