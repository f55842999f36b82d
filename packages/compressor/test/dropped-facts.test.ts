import type { Message } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { collectDroppedFacts, commandLine, FACTS_HEADING, renderDroppedFacts } from "../src/dropped-facts.js";
import { RESTATED_TASK_HEADER } from "../src/markers.js";
import { expectValid, fakeSummariser } from "./helpers.js";

const TASK = "Fix the crash in src/parser/tokens.py when the input ends with a backslash; keep the public API.";

/** A coding session where each tool round runs a command and gets an error line back, mini-swe-agent style (observations as user messages). */
function codingSession(rounds: number): Message[] {
  const out: Message[] = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: TASK }];
  for (let i = 0; i < rounds; i++) {
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `python -m pytest tests/test_tok_${i}.py -k case${i}` }) } }],
    } as Message);
    out.push({
      role: "tool",
      tool_call_id: `c${i}`,
      content: `collected 3 items\nlib/pkg_${i}/module_${i}.py:${100 + i}: in parse\nE   ValueError: bad token ${7000 + i} at offset ${i}.${i}\n${"filler output line\n".repeat(40)}`,
    } as Message);
    out.push({ role: "user", content: `Observation ${i}: step done, ${"more text ".repeat(30)}` });
  }
  return out;
}

describe("exact facts of the compacted turns", () => {
  it("collects commands, error lines, paths and numbers verbatim, newest first", () => {
    const facts = collectDroppedFacts(codingSession(3).slice(2));
    expect(facts.command[0]).toBe("python -m pytest tests/test_tok_2.py -k case2");
    expect(facts.error).toContain("E   ValueError: bad token 7002 at offset 2.2");
    expect(facts.path).toContain("lib/pkg_0/module_0.py");
    // Numbers keep the word they belong to.
    expect(facts.number).toEqual(expect.arrayContaining(["token 7000", "token 7002", "offset 2.2"]));
  });

  it("names a non-shell tool call by its string arguments", () => {
    expect(commandLine("str_replace_editor", JSON.stringify({ command: "view", path: "/repo/a.py" }))).toBe("str_replace_editor view /repo/a.py");
  });

  it("shares the budget among the kinds and leaves out what is already said", () => {
    const facts = { command: ["make test"], error: ["E   boom happened here"], path: ["a/b/c.py"], number: Array.from({ length: 500 }, (_, i) => `id ${1000 + i}`) };
    const text = renderDroppedFacts(facts, 400);
    expect(text.length).toBeLessThanOrEqual(400);
    for (const t of ["make test", "E   boom happened here", "a/b/c.py", "id 1000"]) expect(text).toContain(t);
    expect(renderDroppedFacts(facts, 400, (t) => t === "make test")).not.toContain("make test");
    expect(renderDroppedFacts({ command: [], error: [], path: [], number: [] }, 400)).toBe("");
  });
});


describe("the compressor keeps the task and the dropped facts", () => {
  for (const [name, model] of [["deterministic summary", undefined], ["model summary", fakeSummariser({ reply: () => "## Latest Request\nNone\n## Goal\nHelp.\n## Progress\n1. Worked." })]] as const) {
    it(`${name}: the task statement verbatim after every compaction, and the dropped commands and errors in the summary`, async () => {
      const engine = new ContextCompressor({ contextLength: 8_000, ...(model ? { chatModel: model } : {}) });
      const session = codingSession(60);
      let conversation: Message[] = [];
      let compactions = 0;
      for (const m of session) {
        conversation.push(m);
        const tokens = conversation.reduce((n, x) => n + Math.ceil(JSON.stringify(x).length / 4), 0);
        if (engine.shouldCompress(tokens)) {
          const before = conversation.length;
          conversation = await engine.compress(conversation, { sessionId: "s", currentTokens: tokens });
          if (conversation.length < before) compactions++;
          expectValid(conversation);
          const text = conversation.map((x) => contentText(x.content)).join("\n").replace(/^> ?/gm, "");
          expect(text).toContain(TASK);
        }
      }
      expect(compactions).toBeGreaterThan(1);
      const summary = contentText(conversation.find(isSummaryMessage)!.content);
      if (process.env.DUMP) console.log(summary);
      expect(summary).toContain(FACTS_HEADING);
      expect(summary).toMatch(/python -m pytest tests\/test_tok_\d+\.py -k case\d+/);
      expect(summary).toMatch(/E {3}ValueError: bad token \d+ at offset/);
      // Restated once, not stacked up compaction after compaction.
      const all = conversation.map((x) => contentText(x.content)).join("\n");
      expect(all.split(RESTATED_TASK_HEADER).length - 1).toBe(1);
    });
  }
});
