import type { Message } from "@context-engine/core";
import { checkConversation, contentText, toolCallsOf } from "@context-engine/core";
import { createFakeChatModel } from "@context-engine/contract-tests/fixtures";
import { describe, expect, it } from "vitest";
import { ContextCompressor, SUMMARY_END_MARKER, isSummaryMessage, sanitizeToolPairs } from "../src/index.js";
import { placeSummary } from "../src/placement.js";
import { serializeTurns } from "../src/serialize.js";
import { expectAlternating, expectValid, fakeSummariser, visibleRoles } from "./helpers.js";

const SUMMARY = "[CONTEXT SUMMARY — test]\n\nbody\n\n" + SUMMARY_END_MARKER;

const call = (id: string, content: string | null = null): Message => ({
  role: "assistant",
  content,
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: `{"command":"ls ${id}"}` } }],
});
const result = (id: string): Message => ({ role: "tool", tool_call_id: id, content: `listing of ${id}` });
const user = (text: string): Message => ({ role: "user", content: text });
const assistant = (text: string): Message => ({ role: "assistant", content: text });

// Every way the kept head can end…
const heads: Record<string, Message[]> = {
  empty: [],
  system: [{ role: "system", content: "sys" }],
  "system+developer": [{ role: "system", content: "sys" }, { role: "developer", content: "dev" }],
  user: [{ role: "system", content: "sys" }, user("first ask")],
  assistant: [{ role: "system", content: "sys" }, user("first ask"), assistant("first answer")],
  "tool result": [{ role: "system", content: "sys" }, user("first ask"), call("h1"), result("h1")],
};
// …and every way the kept tail can start.
const tails: Record<string, Message[]> = {
  user: [user("latest ask"), assistant("working on it")],
  assistant: [assistant("an answer"), user("latest ask")],
  "tool call then user": [call("t1"), result("t1"), user("latest ask")],
  "tool call then assistant": [call("t1"), result("t1"), assistant("done"), user("latest ask")],
  "tool call with text then user": [call("t1", "let me look"), result("t1"), user("latest ask")],
  "orphan tool result then user": [result("ghost"), user("latest ask")],
  "orphan tool result then assistant": [result("ghost"), assistant("done")],
  empty: [],
};

describe("summary placement: every head end × tail start", () => {
  for (const [headName, head] of Object.entries(heads)) {
    for (const [tailName, tail] of Object.entries(tails)) {
      it(`head ends with ${headName}, tail starts with ${tailName}`, () => {
        const placed = sanitizeToolPairs(placeSummary(head, SUMMARY, tail));
        // Still a valid conversation, and the head is untouched (prompt cache).
        expect(checkConversation(placed)).toEqual([]);
        head.forEach((m, i) => expect(placed[i]).toBe(m));
        // Exactly one message carries the summary, right after the head (or
        // after orphan results the pair check then removed).
        const carriers = placed.filter((m) => contentText(m.content).includes(SUMMARY_END_MARKER));
        expect(carriers).toHaveLength(1);
        expect(placed.indexOf(carriers[0]!)).toBe(head.length);
        // Template-visible roles alternate (tool rows and tool-call assistants
        // are skipped by strict templates), and a summary right after the
        // system prompt (or at the start) is a user turn.
        expectAlternating(placed);
        const visible = visibleRoles(placed).filter((r) => r !== "system");
        if (head.every((m) => m.role === "system" || m.role === "developer")) {
          expect(visible[0]).toBe("user");
        }
        // Nothing of the tail is lost: calls keep their results, texts survive.
        for (const m of tail) {
          if (m.role === "tool" && (m as { tool_call_id: string }).tool_call_id === "ghost") continue;
          const text = contentText(m.content);
          if (text) expect(placed.some((p) => contentText(p.content).includes(text))).toBe(true);
          if (m.role === "assistant" && m.tool_calls) expect(placed.some((p) => p.role === "assistant" && p.tool_calls?.[0]?.id === m.tool_calls![0]!.id)).toBe(true);
        }
      });
    }
  }
});

describe("a summary merged into a tool-call assistant", () => {
  // After the system prompt the summary must be a user turn, but the first
  // visible tail message is the live user request after a tool round, so the
  // summary is merged into the tool-call assistant that opens the tail.
  const conversation = (): Message[] => {
    const pad = (s: string) => `${s} ${"word ".repeat(600)}`;
    return [
      { role: "system", content: "sys" },
      user(pad("u1")),
      assistant(pad("a1")),
      user(pad("u2")),
      assistant(pad("a2")),
      call("A"),
      result("A"),
      user("latest request"),
      call("B"),
      result("B"),
    ];
  };
  // The budget holds the small last five messages (the padded ones are far larger).
  const engine = () =>
    new ContextCompressor({ contextLength: 64_000, chatModel: fakeSummariser(), config: { protect_first_n: 0, protect_last_n: 5, tail_token_budget: 300 } });

  it("keeps the tool calls it carries, and they reach the next summariser prompt", async () => {
    const first = await engine().compress(conversation(), { force: true });
    expectValid(first);
    expectAlternating(first);
    const carrier = first[1]!;
    expect(isSummaryMessage(carrier)).toBe(true);
    expect(carrier.role).toBe("assistant");
    expect(toolCallsOf(carrier)[0]?.id).toBe("A");

    // The next compaction summarises it: the call must be serialised with its
    // result (before the fix the carrier was read as a bare summary and its
    // call vanished, leaving an orphan result in the prompt).
    const text = serializeTurns([carrier, first[2]!], { maxChars: 10_000 });
    expect(text).toContain("bash(");
    expect(text).toContain("[id A]");
    expect(text).toContain("[TOOL RESULT A]");
    expect(text).not.toContain("CONTEXT SUMMARY");

    const model = createFakeChatModel();
    const second = new ContextCompressor({ contextLength: 64_000, chatModel: model, config: { protect_first_n: 0, protect_last_n: 3, tail_token_budget: 1 } });
    const grown = [...first, assistant("B is done"), user(`more ${"word ".repeat(600)}`), assistant("sure")];
    const out = await second.compress(grown, { force: true });
    expectValid(out);
    const prompt = contentText(model.calls.at(-1)!.messages[0]!.content);
    expect(prompt).toContain("PREVIOUS CHECKPOINT:");
    expect(prompt).toMatch(/bash\(\{"command":"ls A"\}\) \[id A\]/);
  });

  it("when the carrier is kept in the tail, its calls and results stay", async () => {
    const first = await engine().compress(conversation(), { force: true });
    // A transcript where the carrier sits after a protected opening message,
    // so it lands in the kept tail of the next compaction.
    const shifted: Message[] = [first[0]!, user(`opening ${"word ".repeat(800)}`), assistant(`reply ${"word ".repeat(800)}`), ...first.slice(1)];
    // A budget that holds the carrier (a summary, which quotes the padded task u1 of the first compaction) and what follows, not the padded opening.
    const e = new ContextCompressor({ contextLength: 64_000, config: { protect_first_n: 0, protect_last_n: 5, tail_token_budget: 1_600 } });
    const out = await e.compress(shifted, { force: true });
    expectValid(out);
    expect(out.some((m) => m.role === "assistant" && m.tool_calls?.[0]?.id === "A")).toBe(true);
    expect(out.some((m) => m.role === "tool" && m.tool_call_id === "A")).toBe(true);
    expect(out.filter((m) => contentText(m.content).includes(SUMMARY_END_MARKER))).toHaveLength(1);
  });
});
