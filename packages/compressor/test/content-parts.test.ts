import type { Message } from "@context-engine/core";
import { IMAGE_PART_TOKENS, contentText, createEstimator } from "@context-engine/core";
import { createFakeChatModel } from "@context-engine/contract-tests/fixtures";
import { describe, expect, it } from "vitest";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { serializeTurns } from "../src/serialize.js";
import { agentConversation, expectValid, lastUserText } from "./helpers.js";

const counter = createEstimator();
const dataUrl = (chars: number) => `data:image/png;base64,${"A".repeat(chars)}`;
const image = (chars = 200_000) => ({ type: "image_url", image_url: { url: dataUrl(chars) } });

describe("content-part (array) messages and images", () => {
  it("count an image part at a flat per-image cost, not by the size of its data URL", () => {
    const engine = new ContextCompressor({ contextLength: 16_000 });
    const withImage = { role: "user", content: [{ type: "text", text: "what is this?" }, image(1_000_000)] } as Message;
    const tokens = engine.tokenCounter.countMessage(withImage);
    expect(tokens).toBeGreaterThanOrEqual(IMAGE_PART_TOKENS);
    expect(tokens).toBeLessThan(IMAGE_PART_TOKENS + 50);
    // Text parts count like the same text in a string.
    const parts = { role: "user", content: [{ type: "text", text: "alpha ".repeat(500) }, { type: "text", text: "beta ".repeat(500) }] } as Message;
    const flat = { role: "user", content: `${"alpha ".repeat(500)}\n${"beta ".repeat(500)}` } as Message;
    expect(Math.abs(engine.tokenCounter.countMessage(parts) - engine.tokenCounter.countMessage(flat))).toBeLessThan(10);
  });

  it("summarises large part-list and image messages without throwing, and keeps an image request whole", async () => {
    for (const chatModel of [undefined, createFakeChatModel()]) {
      const engine = new ContextCompressor({ contextLength: 8_000, ...(chatModel ? { chatModel } : {}) });
      const messages = agentConversation({ turns: 8 });
      messages.splice(
        2,
        0,
        { role: "assistant", content: "Send me the log." },
        { role: "user", content: [{ type: "text", text: `pasted log ${"line of log\n".repeat(4_000)}` }, image(), { type: "input_audio", input_audio: { data: "UklGR", format: "wav" } }] } as Message,
      );
      messages.push({ role: "assistant", content: "Done." });
      const request = { role: "user", content: [{ type: "text", text: "What does this screenshot show?" }, image()] } as Message;
      messages.push(request);
      expect(counter.countMessages(messages)).toBeGreaterThan(engine.thresholdTokens);

      const out = await engine.compress(messages);
      expectValid(out);
      expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
      expect(out.at(-1)).toEqual(request); // the latest request with its image, untouched
      expect(out.some(isSummaryMessage)).toBe(true);
      if (chatModel) {
        // The summariser sees the parts named, never a base64 blob.
        const prompt = contentText(chatModel.calls[0]!.messages[0]!.content);
        expect(prompt).toContain("[image]");
        expect(prompt).toContain("[input_audio]");
        expect(prompt).not.toContain("AAAAAAAAAAAAAAAA");
      }
    }
  });

  it("serialises image parts by URL or as [image], other parts by type", () => {
    const text = serializeTurns(
      [{ role: "user", content: [{ type: "text", text: "compare" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }, image(100), { type: "file", file: { file_id: "f1" } }] } as Message],
      { maxChars: 10_000 },
    );
    expect(text).toBe("[USER]: compare\n[image: https://example.com/a.png]\n[image]\n[file]");
  });

  it("trims a kept tool result made of images when the compaction would not fit otherwise", async () => {
    const engine = new ContextCompressor({ contextLength: 8_000, chatModel: createFakeChatModel() });
    const messages = agentConversation({ turns: 6 });
    messages.push({ role: "user", content: "look at the pages" });
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: "shot", type: "function", function: { name: "screenshot", arguments: "{}" } }] });
    // Ten screenshots: a few words of text, thousands of tokens.
    messages.push({ role: "tool", tool_call_id: "shot", content: [{ type: "text", text: "10 screenshots" }, ...Array.from({ length: 10 }, () => image(5_000))] } as Message);

    const out = await engine.compress(messages);
    expectValid(out);
    expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
    const shot = out.find((m) => m.role === "tool" && m.tool_call_id === "shot")!;
    expect(contentText(shot.content)).toMatch(/screenshot\(\) returned .*10 image\(s\) removed/);
    expect(lastUserText(out)).toContain("look at the pages");
  });

  it("shortens a huge kept assistant message with part-list content when the compaction would not fit otherwise", async () => {
    const engine = new ContextCompressor({ contextLength: 8_000, chatModel: createFakeChatModel() });
    const messages = agentConversation({ turns: 6 });
    messages.push({ role: "user", content: "write it all down" });
    messages.push({ role: "assistant", content: [{ type: "text", text: `BEGIN ${"q ".repeat(20_000)} END` }] } as Message);

    const out = await engine.compress(messages);
    expectValid(out);
    expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
    const answer = contentText(out.at(-1)!.content);
    expect(answer.startsWith("BEGIN")).toBe(true);
    expect(answer.endsWith("END")).toBe(true);
    expect(answer).toContain("chars removed by the context compressor");
    expect(Array.isArray(out.at(-1)!.content)).toBe(true);
  });
});
