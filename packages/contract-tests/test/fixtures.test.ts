import { readFileSync } from "node:fs";
import { checkConversation, ChatModelError, contentText } from "@context-engine/core";
import { resolveDataDir } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import { allFixtures, cloneMessages, createFakeChatModel, fixtures } from "../src/fixtures.js";
import { loadRecordedFixtures } from "./recorded-fixtures.js";

describe("fixtures", () => {
  it("are valid OpenAI conversations, frozen, with their origin", () => {
    for (const f of allFixtures()) {
      expect(checkConversation(f.messages), f.name).toEqual([]);
      expect(Object.isFrozen(f.messages) && Object.isFrozen(f.messages[0]), `${f.name} is deep-frozen`).toBe(true);
      expect(f.origin.kind).toBe("synthetic");
    }
    const copy = cloneMessages(fixtures.codingSession.messages);
    copy[0]!.content = "changed";
    expect(fixtures.codingSession.messages[0]!.content).not.toBe("changed");
  });

  it("cover the shapes engines get wrong", () => {
    const calls = (f: { messages: readonly unknown[] }) =>
      f.messages.map((m) => ((m as { tool_calls?: unknown[] }).tool_calls ?? []).length).filter((n) => n > 0);
    expect(Math.max(...calls(fixtures.parallelToolCalls))).toBe(3);
    expect(calls(fixtures.codingSession).length).toBeGreaterThan(15);
    expect(fixtures.contentParts.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "image_url"))).toBe(true);
    expect(fixtures.inFlightToolCall.messages.at(-1)).toMatchObject({ role: "assistant", tool_calls: [expect.anything()] });
    for (const f of allFixtures()) expect(f.messages[0]!.role, f.name).toBe("system");
  });

  it("the ./fixtures entry does not import vitest", () => {
    const files = ["fixtures.ts", "fixtures/conversations.ts", "fixtures/coding-session.ts", "fixtures/clone.ts", "fixtures/types.ts"];
    for (const f of files) expect(readFileSync(new URL(`../src/${f}`, import.meta.url), "utf8")).not.toMatch(/from "vitest/);
  });
});

const dataDir = resolveDataDir();
if (!dataDir) console.warn("[contract-tests] SKIPPED recorded fixtures: no shared/data found (set CONTEXT_ENGINE_DATA_DIR)");

describe.skipIf(!dataDir)("recorded fixtures", () => {
  it("are converted from shared/data with their licence and upstream", async () => {
    const recorded = await loadRecordedFixtures();
    expect(recorded.map((f) => f.name)).toEqual(["miniSweAgentRequests", "openHandsMypy", "sweAgentMarshmallow", "tauBenchAirline", "locomoConversation"]);
    for (const f of recorded) {
      expect(f.origin).toMatchObject({ kind: "recorded", license: expect.any(String), upstream: expect.stringMatching(/@[0-9a-f]{40}:/) });
      expect(checkConversation(f.messages), f.name).toEqual([]);
    }
    expect(recorded.find((f) => f.name === "locomoConversation")!.origin.license).toBe("CC-BY-NC-4.0");
  });
});

describe("createFakeChatModel", () => {
  const request = { messages: cloneMessages(fixtures.codingSession.messages.slice(0, 10)) };

  it("ok: answers a deterministic summary naming identifiers it saw, and records calls", async () => {
    const model = createFakeChatModel();
    const a = await model.complete(request);
    const b = await model.complete(request);
    expect(a.message.content).toEqual(b.message.content);
    expect(contentText(a.message.content)).toContain("src/limits/token-bucket.ts");
    expect(a.usage!.prompt_tokens).toBeGreaterThan(1000);
    expect(model.calls).toHaveLength(2);
  });

  it("empty: answers an empty message", async () => {
    const r = await createFakeChatModel({ mode: "empty" }).complete(request);
    expect(r.message.content).toBe("");
  });

  it("failing: throws a ChatModelError of the requested kind", async () => {
    await expect(createFakeChatModel({ mode: "failing", failWith: "quota" }).complete(request)).rejects.toSatisfy(
      (e: unknown) => ChatModelError.is(e) && e.kind === "quota",
    );
  });

  it("slow: answers after the delay, or rejects as aborted when the signal fires", async () => {
    const quick = await createFakeChatModel({ mode: "slow", delayMs: 5 }).complete(request);
    expect(contentText(quick.message.content)).toContain("Summary");
    const controller = new AbortController();
    const pending = createFakeChatModel({ mode: "slow", delayMs: 60_000 }).complete({ ...request, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toSatisfy((e: unknown) => ChatModelError.is(e) && e.kind === "aborted");
  });

  it("honours an already aborted signal in every mode", async () => {
    for (const mode of ["ok", "slow", "failing", "empty"] as const) {
      await expect(createFakeChatModel({ mode }).complete({ ...request, signal: AbortSignal.abort() })).rejects.toSatisfy(
        (e: unknown) => ChatModelError.is(e) && e.kind === "aborted",
      );
    }
  });
});
