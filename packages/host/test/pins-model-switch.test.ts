import { ContextCompressor } from "@context-engine/compressor";
import { describe, expect, it } from "vitest";
import { PinsOverCapError, parseSlashCommand, runSlashCommand } from "../src/index.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

async function pinnedSession() {
  server.script(() => ({ content: "ok" }));
  const { host, ofType } = makeHost(server, { engine: new ContextCompressor({ contextLength: 8_000, model: "test-model" }), config: { pins: { maxShare: 0.1 } } });
  const session = await host.openSession({ model: "test-model", contextLength: 8_000, systemPrompt: "sys" });
  // ~500 tokens of pins: under the cap of 800 for 8,000 tokens, over the cap of 400 for 4,000.
  expect((await session.pin("keep this ".repeat(120))).status).toBe("pinned");
  expect((await session.pin("and this ".repeat(60))).status).toBe("pinned");
  return { session, ofType };
}

describe("the pins cap after a model switch", () => {
  it("refuses a switch to a window whose cap the pins exceed, with the figures, and changes nothing", async () => {
    const { session, ofType } = await pinnedSession();
    expect(session.pins().reduce((n, p) => n + p.tokens, 0)).toBeGreaterThan(400);
    const refused = await session.switchModel("small-model", 4_000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(PinsOverCapError);
    const error = refused as PinsOverCapError;
    expect(error.code).toBe("pins_over_cap");
    expect(error.cap).toBe(400);
    expect(error.overBy).toBe(error.blockTokens - 400);
    expect(error.message).toContain("p1");
    expect(error.message).toContain("host.pins.max_share");
    expect(session.model).toBe("test-model");
    expect(session.contextLength).toBe(8_000);
    expect(session.pins()).toHaveLength(2);
    expect(ofType("model.switched")).toHaveLength(0);
    // After an unpin the block fits the new cap and the switch goes through.
    expect((await session.unpin("p1")).status).toBe("unpinned");
    await session.switchModel("small-model", 4_000);
    expect(session.contextLength).toBe(4_000);
  });

  it("the chat's /model says it was refused, with the figure", async () => {
    const { session } = await pinnedSession();
    const outcome = await runSlashCommand(session, parseSlashCommand("/model small-model 4000")!);
    expect(outcome.output).toMatch(/^Refused: not switched to small-model: the pins take ~\d+ tokens, over the cap of 400/);
    expect(session.model).toBe("test-model");
    // A larger window is no problem.
    const bigger = await runSlashCommand(session, parseSlashCommand("/model big-model 100000")!);
    expect(bigger.output).toContain("Model: big-model");
  });
});
