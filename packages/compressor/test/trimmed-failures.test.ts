import type { Message } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { expectValid } from "./helpers.js";

/** A long build log: its start and end say only that it ran; the failures sit in the middle. */
function buildLog(lines: number): string {
  const out = ["building 412 targets", "step 1: configure"];
  for (let i = 0; i < lines; i++) {
    out.push(`compiling src/unit_${i}.c ... ok`);
    if (i === Math.floor(lines / 3)) out.push("src/unit_parser.c:88:14: error: 'token_kind' undeclared (first use in this function)");
    if (i === Math.floor(lines / 2)) out.push("make[2]: *** [Makefile:310: build/unit_parser.o] Error 1");
  }
  out.push("build finished", "summary written to build/report.txt");
  return out.join("\n");
}

function call(id: string, command: string): Message {
  return { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }] } as Message;
}

describe("failure lines survive a trimmed tool output", () => {
  it("pruning keeps the failure lines of the trimmed middle, within a bound, once", async () => {
    const engine = new ContextCompressor({ contextLength: 64_000 });
    const messages: Message[] = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Make the build green." }];
    messages.push(call("c_ls", "ls -la"), { role: "tool", tool_call_id: "c_ls", content: "Makefile src tests" } as Message);
    messages.push(call("c_build", "make -j2"), { role: "tool", tool_call_id: "c_build", content: buildLog(600) } as Message);
    for (let i = 0; i < 12; i++) messages.push(call(`c${i}`, `cat notes_${i}.txt`), { role: "tool", tool_call_id: `c${i}`, content: `note ${i} `.repeat(700) } as Message);
    const { messages: out, pruned } = await engine.pruneToolResultsOnly(messages);
    expect(pruned).toBeGreaterThan(0);
    expectValid(out);
    const trimmed = contentText(out[5]!.content);
    expect(trimmed).toMatch(/^\[tool output trimmed by the context compressor/);
    expect(trimmed).toContain("src/unit_parser.c:88:14: error: 'token_kind' undeclared (first use in this function)");
    expect(trimmed.split("make[2]: *** [Makefile:310: build/unit_parser.o] Error 1")).toHaveLength(2);
    // Bounded: the failure lines take at most three quarters of the start and end kept (400 + 300 characters).
    const failures = trimmed.slice(trimmed.indexOf("their failure lines:]\n"), trimmed.indexOf("…[end of trimmed part]…"));
    expect(failures.length).toBeLessThanOrEqual(525 + "their failure lines:]\n".length);
    expect(trimmed.length).toBeLessThan(2_000);
  });

  it("a trimmed middle with more failure lines than the bound keeps the latest failures first", async () => {
    const engine = new ContextCompressor({ contextLength: 64_000 });
    const failing = Array.from({ length: 40 }, (_, i) => `tests/test_mod.py::test_case_${i} FAILED`);
    const log = ["collected 40 items", "x".repeat(3_000), ...failing, "y".repeat(3_000), "40 failed in 3.2s"].join("\n");
    const messages: Message[] = [{ role: "system", content: "s" }, { role: "user", content: "Fix the tests." }];
    messages.push(call("c_ls", "ls -la"), { role: "tool", tool_call_id: "c_ls", content: "setup.py src tests" } as Message);
    messages.push(call("c_t", "pytest -v"), { role: "tool", tool_call_id: "c_t", content: log } as Message);
    for (let i = 0; i < 12; i++) messages.push(call(`c${i}`, `cat notes_${i}.txt`), { role: "tool", tool_call_id: `c${i}`, content: `note ${i} `.repeat(700) } as Message);
    const trimmed = contentText((await engine.pruneToolResultsOnly(messages)).messages[5]!.content);
    expect(trimmed).toContain("tests/test_mod.py::test_case_39 FAILED");
    expect(trimmed).not.toContain("tests/test_mod.py::test_case_0 FAILED");
  });

  it("a kept tool output too large for the limit does not starve the summary: the room its trim frees is the summary's", async () => {
    // 16k window: the newest result alone is over the compaction limit, so assembly must trim it whatever the summary's size.
    const engine = new ContextCompressor({ contextLength: 16_000 });
    const messages: Message[] = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Make the build green." }];
    for (let i = 0; i < 8; i++) {
      const result = i === 3 ? `running step ${i}\nModuleNotFoundError: No module named 'widget_core'\nexit status 1` : `step ${i} output `.repeat(300);
      messages.push(call(`c${i}`, `./step_${i}.sh --verbose`), { role: "tool", tool_call_id: `c${i}`, content: result } as Message);
    }
    messages.push(call("c_big", "make -j2"), { role: "tool", tool_call_id: "c_big", content: buildLog(4_000) } as Message);
    const out = await engine.compress(messages, { sessionId: "s" });
    expectValid(out);
    const summary = contentText(out.find(isSummaryMessage)!.content);
    // The summary states the dropped turns' facts, not a stub cut to the minimum.
    expect(summary).toContain("ModuleNotFoundError: No module named 'widget_core'");
    expect(summary).toContain("./step_3.sh --verbose");
    expect(summary).not.toContain("summary shortened");
    // The huge result was trimmed, and its failure lines kept.
    const kept = contentText(out.at(-1)!.content);
    expect(kept).toMatch(/^\[tool output trimmed by the context compressor/);
    expect(kept).toContain("src/unit_parser.c:88:14: error: 'token_kind' undeclared (first use in this function)");
  });
});
