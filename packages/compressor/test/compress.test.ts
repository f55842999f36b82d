import type { Message } from "@context-engine/core";
import { contentText, createEstimator } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createFakeChatModel } from "@context-engine/contract-tests/fixtures";
import { ContextCompressor, EXTRACTIVE_TAG, SUMMARY_END_MARKER, extractSummaryBody, isSummaryMessage, resolveModelThreshold } from "../src/index.js";
import { agentConversation, expectAlternating, expectValid, fakeSummariser, lastUserText } from "./helpers.js";

const counter = createEstimator();

describe("compress: guarantees", () => {
  it("returns the very input object when there is nothing to do", async () => {
    const engine = new ContextCompressor({ contextLength: 100_000 });
    const tiny: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "hi" },
    ];
    expect(await engine.compress(tiny)).toBe(tiny);
    const empty: Message[] = [];
    expect(await engine.compress(empty)).toBe(empty);
    // Head + minimal tail cover everything: nothing in the middle.
    const short: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ];
    expect(await engine.compress(short)).toBe(short);
    expect(engine.compressionCount).toBe(0);
  });

  it("fits under the threshold, keeps tool pairs and the latest request, alternates roles", async () => {
    for (const chatModel of [undefined, fakeSummariser()]) {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel });
      const messages = agentConversation({ turns: 12 });
      const before = counter.countMessages(messages);
      expect(before).toBeGreaterThan(engine.thresholdTokens);
      const out = await engine.compress(messages);
      expect(out).not.toBe(messages);
      expectValid(out);
      expectAlternating(out);
      expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
      expect(lastUserText(out)).toContain(lastUserText(messages));
      expect(out[0]).toBe(messages[0]); // the system prompt is untouched (prompt cache)
      expect(out.filter(isSummaryMessage)).toHaveLength(1);
      expect(engine.compressionCount).toBe(1);
    }
  });

  it("does not mutate its input", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000 });
    const messages = agentConversation({ turns: 12 });
    const snapshot = structuredClone(messages);
    await engine.compress(messages);
    expect(messages).toEqual(snapshot);
  });

  it("marks the extractive summary and keeps identifiers, paths, numbers and the open request", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, config: { protect_first_n: 0 } });
    const messages: Message[] = [{ role: "system", content: "You are an airline agent." }];
    messages.push({ role: "user", content: "Please change reservation ABC123 for user mia_li_3668 to flight HAT170 on 2024-05-20." });
    for (let i = 0; i < 12; i++) {
      const id = `call_${i}`;
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "get_reservation_details", arguments: JSON.stringify({ reservation_id: "ABC123", path: `/srv/data/res_${i}.json` }) } }],
      });
      messages.push({ role: "tool", tool_call_id: id, content: `{"reservation_id":"ABC123","price":${1200 + i},"flight":"HAT170"}\n` + "detail ".repeat(400) });
    }
    messages.push({ role: "user", content: "Also upgrade the cabin to business for flight HAT170, confirmation 4471." });
    for (let i = 12; i < 20; i++) {
      const id = `call_${i}`;
      messages.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "search", arguments: "{}" } }] });
      messages.push({ role: "tool", tool_call_id: id, content: "result ".repeat(500) });
    }
    const out = await engine.compress(messages);
    expectValid(out);
    const summary = out.find(isSummaryMessage)!;
    const text = contentText(summary.content);
    expect(text).toContain(EXTRACTIVE_TAG);
    expect(text).toContain("ABC123");
    expect(text).toContain("mia_li_3668");
    expect(text).toContain("/srv/data/res_");
    expect(text).toContain("HAT170");
    expect(text).toContain("1200");
    // The open request is kept verbatim somewhere in the output.
    const all = out.map((m) => contentText(m.content)).join("\n");
    expect(all).toContain("Also upgrade the cabin to business for flight HAT170, confirmation 4471.");
    expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
  });

  it("restates the latest request after the summary when its turn is too large to keep", async () => {
    const engine = new ContextCompressor({ contextLength: 12_000 });
    const request = "Refactor the parser in lib/parse.py so that parse_header() accepts CRLF; keep the public API.";
    const messages: Message[] = [{ role: "system", content: "sys prompt" }, { role: "user", content: request }];
    for (let i = 0; i < 30; i++) {
      const id = `c${i}`;
      messages.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "bash", arguments: `{"command":"step ${i}"}` } }] });
      messages.push({ role: "tool", tool_call_id: id, content: `step ${i} output ` + "y".repeat(1_200) });
    }
    // First compaction protects the head (the request is in it); the second decays head protection.
    let out = await engine.compress(messages);
    expectValid(out);
    for (let i = 30; i < 45; i++) {
      const id = `c${i}`;
      out = [...out, { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "bash", arguments: `{"command":"step ${i}"}` } }] }, { role: "tool", tool_call_id: id, content: "z".repeat(1_500) }];
    }
    const second = await engine.compress(out);
    expectValid(second);
    expectAlternating(second);
    expect(counter.countMessages(second)).toBeLessThan(engine.thresholdTokens);
    const users = second.filter((m) => m.role === "user").map((m) => contentText(m.content));
    expect(users.some((u) => u.includes(request))).toBe(true);
    expect(engine.compressionCount).toBe(2);
  });

  it("updates the previous summary instead of summarising it blindly", async () => {
    const model = fakeSummariser();
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    const first = await engine.compress(agentConversation({ turns: 12 }));
    const grown = [...first, ...agentConversation({ turns: 10 }).slice(1)];
    await engine.compress(grown);
    expect(model.requests).toHaveLength(2);
    const secondPrompt = contentText(model.requests[1]!.messages[0]!.content);
    expect(secondPrompt).toContain("PREVIOUS CHECKPOINT:");
    expect(secondPrompt).toContain("NEW TURNS TO INCORPORATE:");
    // The old summary is passed as the checkpoint, not serialised again as a turn.
    expect(secondPrompt.split("[CONTEXT SUMMARY —").length).toBe(1);
  });

  it("a second compaction updates the first summary and never serialises it as a turn (summary merged into the live request)", async () => {
    const model = createFakeChatModel();
    // protect_first_n 0: the summary lands right after the system prompt as a
    // user turn, merged into the live request that opens the tail.
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model, config: { protect_first_n: 0, protect_last_n: 1, tail_token_budget: 1 } });
    const ask = "Now deploy build 42 to staging.";
    const first = await engine.compress([...agentConversation({ turns: 12 }), { role: "user", content: ask }]);
    const carrier = first[1]!;
    expect(isSummaryMessage(carrier)).toBe(true);
    expect(carrier.role).toBe("user");
    expect(contentText(carrier.content).endsWith(`${SUMMARY_END_MARKER}\n\n${ask}`)).toBe(true); // the live request follows the end marker
    const firstBody = extractSummaryBody(carrier)!;

    const grown = [...first, ...agentConversation({ turns: 10 }).slice(1)];
    const second = await engine.compress(grown);
    expectValid(second);
    const prompt = contentText(model.calls[1]!.messages[0]!.content);
    const [before, turns] = prompt.split("NEW TURNS TO INCORPORATE:");
    // The previous body is the checkpoint to update, given once…
    expect(before).toContain(`PREVIOUS CHECKPOINT:\n${firstBody}`);
    expect(prompt.split(firstBody).length).toBe(2);
    // …and the carrier is read as the live request it wrapped, not as content.
    expect(turns).toContain(`[USER]: ${ask}`);
    expect(turns).not.toContain("CONTEXT SUMMARY");
    expect(turns).not.toContain(SUMMARY_END_MARKER);
    expect(second.filter(isSummaryMessage)).toHaveLength(1);
  });

  it("the extractive summary updates the previous one too: goal carried, numbering continued, no summary-of-summary", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, config: { protect_first_n: 0 } });
    const first = await engine.compress(agentConversation({ turns: 12 }));
    const firstText = contentText(first.find(isSummaryMessage)!.content);
    const firstNumbers = [...firstText.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
    const second = await engine.compress([...first, ...agentConversation({ turns: 10 }).slice(1)]);
    expectValid(second);
    const text = contentText(second.find(isSummaryMessage)!.content);
    // The goal of the first summary, carried: it points to the task, which the summary restates verbatim once.
    expect(text).toContain("The opening request (the task), kept verbatim in this context.");
    expect(text.split("Request 0: fix bug_0 in src/module_0.ts").length).toBe(2);
    const numbers = [...text.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
    expect(Math.max(...numbers)).toBeGreaterThan(Math.max(...firstNumbers));
    // The first summary is the thing updated, not a turn quoted inside the new one.
    expect(text.split(EXTRACTIVE_TAG).length).toBe(2);
    expect(text.split("[CONTEXT SUMMARY — ").length).toBe(2);
  });

  it("head protection also decays after a restart when the transcript already carries a summary", async () => {
    const compacted = await new ContextCompressor({ contextLength: 16_000 }).compress(agentConversation({ turns: 12 }));
    const restarted = new ContextCompressor({ contextLength: 16_000, config: { protect_first_n: 3 } });
    const grown = [...compacted, ...agentConversation({ turns: 8 }).slice(1)];
    const out = await restarted.compress(grown);
    expect(out[0]).toBe(grown[0]);
    // The opening request protected by the first compaction is summarised now.
    expect(out[1]).not.toBe(grown[1]);
    expect(isSummaryMessage(out[1]!)).toBe(true);
  });

  it("anchors exact identifiers the model summary left out", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: fakeSummariser({ reply: () => "## Latest Request\nNone\n## Goal\nFix the bugs." }) });
    const out = await engine.compress(agentConversation({ turns: 12 }));
    const text = contentText(out.find(isSummaryMessage)!.content);
    expect(text).toContain("## Exact Identifiers (deterministic, from the compacted turns)");
    expect(text).toMatch(/`src\/module_\d+\.ts`/);
    expect(text).toMatch(/`bug_\d+`/);
  });

  it("rehydrates the previous summary from the transcript after a restart", async () => {
    const first = new ContextCompressor({ contextLength: 16_000, chatModel: fakeSummariser({ reply: () => "## Latest Request\nNone\n## Goal\nShip feature FOO_42." }) });
    const compacted = await first.compress(agentConversation({ turns: 12 }));
    const model = fakeSummariser();
    const restarted = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    await restarted.compress([...compacted, ...agentConversation({ turns: 10 }).slice(1)]);
    const prompt = contentText(model.requests[0]!.messages[0]!.content);
    expect(prompt).toContain("PREVIOUS CHECKPOINT:");
    expect(prompt).toContain("FOO_42");
  });

  it("head protection shrinks to the system prompt after the first compaction", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, config: { protect_first_n: 3 } });
    const messages = agentConversation({ turns: 12 });
    const first = await engine.compress(messages);
    expect(first[1]).toBe(messages[1]); // first user message protected
    const grown = [...first, ...agentConversation({ turns: 8 }).slice(1)];
    const second = await engine.compress(grown);
    expect(second[0]).toBe(messages[0]);
    expect(second[1]).not.toBe(messages[1]);
    expect(isSummaryMessage(second[1]!)).toBe(true);
  });

  it("prioritises the focus topic in the prompt", async () => {
    const model = fakeSummariser();
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    await engine.compress(agentConversation({ turns: 12 }), { focusTopic: "database migrations", memoryContext: "user prefers <b>tabs</b>" });
    const prompt = contentText(model.requests[0]!.messages[0]!.content);
    expect(prompt).toMatch(/FOCUS TOPIC: "database migrations"[\s\S]*precedence/);
    expect(prompt.trimEnd().split("\n").slice(-3).join("\n")).toContain("focus topic");
    expect(prompt).toContain("&lt;b&gt;tabs&lt;/b&gt;");
    expect(model.requests[0]!.maxTokens).toBeUndefined();
  });

  it("the extractive summary gives the focus topic its own section", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000 });
    const messages = agentConversation({ turns: 12 });
    const out = await engine.compress(messages, { focusTopic: "module_3" });
    const text = contentText(out.find(isSummaryMessage)!.content);
    expect(text).toContain("## Focus: module_3");
  });

  it("asks for the configured summary model and falls back to the main model once", async () => {
    const requests: Array<string | undefined> = [];
    const engine = new ContextCompressor({
      contextLength: 16_000,
      model: "main-model",
      config: { summary_model: "tiny-summariser" },
      chatModel: {
        async complete(req) {
          requests.push(req.model);
          if (req.model === "tiny-summariser") {
            const { ChatModelError } = await import("@context-engine/core");
            throw new ChatModelError("bad_request", "model not found");
          }
          return { message: { role: "assistant", content: "## Latest Request\nNone\n## Goal\nx" }, finishReason: "stop" };
        },
      },
    });
    const out = await engine.compress(agentConversation({ turns: 12 }));
    expect(requests).toEqual(["tiny-summariser", undefined]);
    expect(engine.getStatus().lastCompaction?.mode).toBe("model");
    expectValid(out);
    await engine.compress([...out, ...agentConversation({ turns: 10 }).slice(1)]);
    expect(requests.slice(2)).toEqual([undefined]);
  });

  it("places the summary so roles alternate in every head/tail shape", async () => {
    const shapes: Message[][] = [
      // head ends with system, tail starts with user → merged into that user message
      [{ role: "system", content: "s" }, ...chat(20), { role: "user", content: "final question?" }],
      // no system prompt at all
      [...chat(21)],
      // tail starting with a tool-call assistant
      [{ role: "system", content: "s" }, ...agentConversation({ turns: 6 }).slice(1)],
    ];
    for (const messages of shapes) {
      const engine = new ContextCompressor({ contextLength: 4_000, config: { protect_first_n: 0, protect_last_n: 2 } });
      const out = await engine.compress(messages, { force: true });
      expectValid(out);
      expectAlternating(out);
      expect(out.some(isSummaryMessage)).toBe(true);
      const merged = out.find((m) => contentText(m.content).includes(SUMMARY_END_MARKER))!;
      expect(merged).toBeDefined();
      expect(lastUserText(out)).toContain(lastUserText(messages));
    }
  });

  it("keeps a token-budgeted tail: the budget first (at least 3 messages), protect_last_n second, tool groups whole", async () => {
    const messages = agentConversation({ turns: 40, resultChars: 400 });
    for (const last of [2, 9, 15]) {
      const engine = new ContextCompressor({ contextLength: 64_000, config: { protect_last_n: last, tail_token_budget: 100 } });
      const out = await engine.compress(messages, { force: true });
      // The kept tail is a suffix of the input, by identity (its first message
      // may carry the summary merged into it).
      let kept = 0;
      while (kept < out.length && out[out.length - 1 - kept] === messages[messages.length - 1 - kept]) kept++;
      const merged = contentText(out[out.length - 1 - kept]!.content).includes(SUMMARY_END_MARKER) && !contentText(out[out.length - 1 - kept]!.content).endsWith(SUMMARY_END_MARKER);
      if (merged) kept++;
      // A 100-token budget holds one tool group: the 3-message floor keeps whole groups, protect_last_n does not override the budget.
      expect(kept).toBeGreaterThanOrEqual(3);
      expect(kept).toBeLessThanOrEqual(5);
      expect(messages[messages.length - kept]!.role).not.toBe("tool");
    }
    // A generous budget keeps more than the minimum.
    const roomy = new ContextCompressor({ contextLength: 64_000, config: { protect_last_n: 2, tail_token_budget: 4_000 } });
    const out = await roomy.compress(messages, { force: true });
    const tailTokens = counter.countMessages(out.slice(out.findIndex((m) => isSummaryMessage(m)) + 1));
    expect(tailTokens).toBeGreaterThan(2_000);
    expect(tailTokens).toBeLessThanOrEqual(4_000 * 1.5);
  });

  it("refuses a compaction that would not shrink the conversation", async () => {
    const engine = new ContextCompressor({ contextLength: 64_000, config: { protect_first_n: 0, protect_last_n: 1 } });
    const messages: Message[] = [
      { role: "system", content: "s" },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "ok" },
      { role: "assistant", content: "fine" },
      { role: "user", content: "bye" },
    ];
    expect(await engine.compress(messages, { force: true })).toBe(messages);
    expect(engine.compressionCount).toBe(0);
  });

  it("hasContentToCompress says whether a manual compaction has a middle to work on", () => {
    const engine = new ContextCompressor({ contextLength: 64_000 });
    expect(engine.hasContentToCompress([{ role: "system", content: "s" }, { role: "user", content: "u" }])).toBe(false);
    expect(engine.hasContentToCompress(agentConversation({ turns: 10 }))).toBe(true);
  });

  it("re-exports resolveModelThreshold and applies model_thresholds", () => {
    expect(resolveModelThreshold("gpt-4o-mini", { "gpt-4o": 0.5 }, 0.75)).toBe(0.5);
    const engine = new ContextCompressor({ config: { model_thresholds: { "gpt-4o": 0.5 }, threshold: 0.8 } });
    engine.updateModel("gpt-4o-mini", 100_000);
    expect(engine.thresholdTokens).toBe(50_000);
    engine.updateModel("other", 100_000);
    expect(engine.thresholdTokens).toBe(80_000);
  });
});

function chat(n: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i} about topic_${i} ` + "w ".repeat(150) });
  }
  return out;
}
