import type { Message } from "@context-engine/core";
import { createEstimator } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { SUMMARY_HEADINGS, buildExtractiveSummary, buildSummaryPrompt } from "../src/index.js";
import { redactSecrets } from "../src/redact.js";
import { serializeTurns } from "../src/serialize.js";
import { groundLatestRequest } from "../src/summary-call.js";
import { agentConversation } from "./helpers.js";

const counter = createEstimator();

describe("summariser input", () => {
  it("serialises roles, tool calls and results, and cuts long contents in the middle", () => {
    const text = serializeTurns(
      [
        { role: "user", content: "fix it" },
        { role: "assistant", content: "<think>secret plan</think>Sure", tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
        { role: "tool", tool_call_id: "c1", content: "START" + "x".repeat(20_000) + "END" },
        { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
      ],
      { maxChars: 160_000 },
    );
    expect(text).toContain("[USER]: fix it");
    expect(text).toContain('bash({"command":"ls"}) [id c1]');
    expect(text).not.toContain("secret plan");
    expect(text).toMatch(/\[TOOL RESULT c1\]: START[\s\S]*chars truncated[\s\S]*END/);
    expect(text).toContain("[image]");
    expect(text.length).toBeLessThan(8_000);
  });

  it("samples a huge middle evenly, keeping user requests and the newest record, with gaps marked", () => {
    const middle = agentConversation({ turns: 200, resultChars: 3_000 }).slice(1);
    const text = serializeTurns(middle, { maxChars: 40_000 });
    expect(text.length).toBeLessThan(48_000);
    expect(text).toContain("Request 199:");
    expect(text).toContain("Request 150:");
    expect(text).toContain("Fixed bug_199"); // the newest record
    expect(text).toMatch(/records \d+-\d+ \([\d,]+ chars\) omitted/);
  });

  it("redacts credential shapes but keeps identifiers and hashes", () => {
    const out = redactSecrets("key sk-proj-abcdefghijklmnopqrstuvwxyz123456 and password=hunter22 and commit 4f2a9c1b and ghp_" + "a".repeat(36));
    expect(out).not.toContain("abcdefghijklmnopqrstuvwxyz123456");
    expect(out).not.toContain("hunter22");
    expect(out).not.toContain("ghp_aaaa");
    expect(out).toContain("4f2a9c1b");
  });

  it("builds a fresh or an update prompt with every heading", () => {
    const fresh = buildSummaryPrompt({ turns: "[USER]: hi", previousSummary: null, targetTokens: 1000, latestRequest: "hi" });
    for (const h of Object.values(SUMMARY_HEADINGS)) expect(fresh).toContain(h);
    expect(fresh).toContain("TURNS TO SUMMARISE:");
    const update = buildSummaryPrompt({ turns: "[USER]: more", previousSummary: "## Goal\nold goal", targetTokens: 1000, latestRequest: null });
    expect(update).toContain("PREVIOUS CHECKPOINT:\n## Goal\nold goal");
    expect(update).toContain("never invent a user");
  });

  it("puts a dropped latest request back into the summary verbatim", () => {
    const grounded = groundLatestRequest("## Latest Request\nNone\n\n## Goal\nx", "Deploy build 42 to staging");
    expect(grounded).toMatch(/## Latest Request\nNewest user message[^\n]*\n> Deploy build 42 to staging/);
    const untouched = "## Latest Request\n> Deploy build 42 to staging\n";
    expect(groundLatestRequest(untouched, "Deploy build 42 to staging")).toBe(untouched);
  });
});

describe("extractive summary", () => {
  const turns: Message[] = agentConversation({ turns: 30, resultChars: 800 }).slice(1);

  it("is deterministic and within its budget", () => {
    const input = { turns, previousSummary: null, latestRequest: "Request 29: fix bug_29", reason: "offline.", targetTokens: 600, calls: new Map() };
    const a = buildExtractiveSummary(input);
    expect(buildExtractiveSummary(input)).toBe(a);
    expect(counter.countText(a)).toBeLessThan(600 * 1.2);
    expect(a).toContain("> Request 29: fix bug_29");
    expect(a).toContain("(earlier entries omitted)");
  });

  it("bounds its work on a huge middle and still numbers actions correctly", () => {
    const huge = agentConversation({ turns: 300, stepsPerTurn: 3, resultChars: 200 }).slice(1);
    const text = buildExtractiveSummary({ turns: huge, previousSummary: null, latestRequest: null, reason: "offline.", targetTokens: 100_000, calls: new Map() });
    const numbers = [...text.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
    expect(text).toMatch(/… \(\d+ earlier actions, 1–\d+, not listed\)/);
    expect(numbers.at(-1)).toBe(300 * 4); // 3 tool calls + 1 answer per turn
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
  });

  it("continues the numbering and keeps identifiers of the previous summary", () => {
    const first = buildExtractiveSummary({ turns: turns.slice(0, 20), previousSummary: null, latestRequest: null, reason: "offline.", targetTokens: 3_000, calls: new Map() });
    const second = buildExtractiveSummary({ turns: turns.slice(20, 40), previousSummary: first, latestRequest: null, reason: "offline.", targetTokens: 3_000, calls: new Map() });
    const numbers = [...second.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(second).toContain("src/module_0.ts");
  });
});
