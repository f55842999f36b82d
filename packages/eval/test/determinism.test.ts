import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { readSessions } from "@context-engine/sessions";
import { evalCodingSession } from "../src/coding.js";
import { readLocomo } from "../src/locomo-data.js";
import { evalConversation } from "../src/locomo.js";

const dataDir = process.env.CONTEXT_ENGINE_DATA_DIR ?? resolve(import.meta.dirname, "../../../../shared/data");
const locomoFile = join(dataDir, "locomo", "locomo7.json");
const codingDir = join(dataDir, "agent-traces", "mini-swe-agent-gemini3pro");
if (!existsSync(locomoFile)) console.warn(`[eval] ${locomoFile} not found (set CONTEXT_ENGINE_DATA_DIR): determinism tests are skipped`);

describe.skipIf(!existsSync(locomoFile))("eval determinism on a small slice", () => {
  it("gives the same LoCoMo figures twice (first 160 turns, 2k window)", async () => {
    const conv = readLocomo(locomoFile)[0]!;
    const turns = conv.turns.slice(0, 160);
    const known = new Set(turns.map((t) => t.diaId));
    const slice = { ...conv, turns, questions: conv.questions.filter((q) => q.evidence.every((e) => known.has(e))).slice(0, 25) };
    expect(slice.questions.length).toBeGreaterThan(5);
    const a = await evalConversation(slice, 2_048);
    const b = await evalConversation(slice, 2_048);
    expect(a.compactions.lcm).toBeGreaterThan(0);
    expect(a.compactions.compressor).toBeGreaterThan(0);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it.skipIf(!existsSync(codingDir))("gives the same coding-session figures twice (first 40 messages, 4k window)", async () => {
    const sessions = await readSessions(codingDir, { limit: 1 });
    const session = { ...sessions[0]!, messages: sessions[0]!.messages.slice(0, 40) };
    const a = await evalCodingSession(session, 4_096);
    const b = await evalCodingSession(session, 4_096);
    expect(a.engines.lcm.compactions).toBeGreaterThan(0);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });
});
