import { readdirSync } from "node:fs";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, replayTurns, usageFor } from "../session.js";
import { exampleArguments, toolSchemasOf } from "../tool-args.js";
import { allText, markConversation } from "../util.js";

async function runSession(h: Harness, dataDir: string, sessionId: string, marker: string) {
  const engine = await h.create({ dataDir, contextLength: h.compactionContextLength });
  await engine.onSessionStart(sessionId, { dataDir, platform: "contract-tests", model: h.model });
  const messages = markConversation(cloneMessages(fixtures.codingSession.messages), marker);
  await replayTurns(engine, messages, sessionId);
  const compacted = await engine.compress(cloneMessages(messages), { sessionId, currentTokens: usageFor(messages).prompt_tokens });
  await engine.onSessionEnd(sessionId, compacted);
  await h.dispose(engine);
  return engine;
}

export function registerPersistence(h: Harness): void {
  it("keeps its state in dataDir across instances", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.persistence) return ctx.skip(`persistence not declared (${caps.from.persistence})`);
    const dataDir = h.tempDir();
    const sessionId = newSessionId("persist");
    await runSession(h, dataDir, sessionId, "zqpersistneedle PERSIST-SECRET-1618");
    expect(readdirSync(dataDir).length > 0, "the engine declares persistence but wrote nothing to its dataDir").toBe(true);

    const second = await h.create({ dataDir });
    await second.onSessionStart(sessionId, { dataDir, platform: "contract-tests", model: h.model });
    const tools = toolSchemasOf(second);
    if (tools.length > 0) {
      const results: string[] = [];
      for (const schema of tools) {
        try {
          results.push(String(await second.handleToolCall(schema.name, exampleArguments(schema.parameters, "zqpersistneedle"), { sessionId, messages: [] })));
        } catch {
          // Throwing tools are reported by the tools domain.
        }
      }
      expect(allText(results).includes("PERSIST-SECRET-1618"), "a new instance on the same dataDir found nothing of the earlier session through its tools: load persisted state in onSessionStart").toBe(true);
    }
  }, h.timeout);

  it("writes nothing to dataDir when it declares no persistence", async (ctx) => {
    const caps = await h.capabilities();
    if (caps.persistence) return ctx.skip("persistence is declared");
    const dataDir = h.tempDir();
    await runSession(h, dataDir, newSessionId("nopersist"), "zqnopersist");
    const files = readdirSync(dataDir);
    expect(files, `the engine wrote ${files.join(", ")} to dataDir but does not declare persistence: declare capabilities.persistence: true`).toEqual([]);
  }, h.timeout);
}
