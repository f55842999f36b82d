import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createEstimator, createMessageCounter, createTiktokenCounter, estimateTextTokens, type Message } from "../src/index.js";

function conversation(n: number): Message[] {
  return Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message number ${i} `.repeat(5) }) as Message);
}

describe("estimator", () => {
  it("counts about four ASCII characters per token", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcd")).toBe(1);
    expect(estimateTextTokens("a".repeat(400))).toBe(100);
  });

  it("counts CJK characters as roughly a token each", () => {
    expect(estimateTextTokens("你好世界")).toBe(4);
    expect(estimateTextTokens("こんにちは")).toBe(5);
  });

  it("counts tool calls, names and image parts", () => {
    const c = createEstimator();
    const plain = c.countMessage({ role: "assistant", content: "" });
    const withCall = c.countMessage({ role: "assistant", content: "", tool_calls: [{ id: "1", type: "function", function: { name: "read_file", arguments: '{"path":"src/index.ts"}' } }] });
    expect(withCall).toBeGreaterThan(plain + 5);
    const img = c.countMessage({ role: "user", content: [{ type: "image_url", image_url: { url: "data:..." } }] });
    expect(img).toBeGreaterThan(500);
  });
});

describe("token cache", () => {
  it("re-counting a grown conversation only tokenizes the new messages", () => {
    const seen: string[] = [];
    const counter = createMessageCounter("spy", false, (t) => {
      seen.push(t);
      return t.length;
    });
    const convo = conversation(100);
    const first = counter.countMessages(convo);
    expect(seen).toHaveLength(100);
    seen.length = 0;
    convo.push({ role: "user", content: "new one" }, { role: "assistant", content: "and another" });
    const second = counter.countMessages(convo);
    expect(seen).toEqual(["new one", "and another"]);
    expect(second).toBe(first + counter.countMessage(convo[100]!) + counter.countMessage(convo[101]!));
  });

  it("re-counts a message whose content was replaced in place", () => {
    const seen: string[] = [];
    const counter = createMessageCounter("spy", false, (t) => (seen.push(t), t.length));
    const m: Message = { role: "user", content: "short" };
    const a = counter.countMessage(m);
    m.content = "a much longer content";
    const b = counter.countMessage(m);
    expect(b).toBeGreaterThan(a);
    expect(seen).toEqual(["short", "a much longer content"]);
  });
});

describe("tiktoken counter", () => {
  it("counts exactly with o200k_base, loaded lazily and shared", async () => {
    const a = await createTiktokenCounter("o200k_base");
    const b = await createTiktokenCounter("o200k_base");
    expect(a).toBe(b);
    expect(a.exact).toBe(true);
    expect(a.countText("hello world")).toBe(2);
    expect(a.countText("<|endoftext|>")).toBeGreaterThan(1);
    expect(a.countMessages([{ role: "user", content: "hello world" }])).toBe(2 + 4);
  });

  it("keeps js-tiktoken out of the module graph until asked (no static import in the build)", () => {
    const src = readFileSync(fileURLToPath(new URL("../src/tokens/tiktoken.ts", import.meta.url)), "utf8");
    expect(src).not.toMatch(/^import .*from "js-tiktoken/m);
    expect(src).toMatch(/import\("js-tiktoken\/lite"\)/);
  });
});
