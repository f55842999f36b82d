import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import { createEstimator } from "@context-engine/core";
import { readSessions } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import { checkRecoverable, isLossless } from "../src/replay/recoverability.js";
import { compactionsSection } from "../src/replay/render-compactions.js";
import { runReplay } from "../src/replay/run.js";
import { FIXTURES } from "./helpers/run-bin.js";

const tmp = () => mkdtempSync(join(tmpdir(), "ce-replay-ledger-"));

describe("the host ledger in the replay report", () => {
  it("every committed compaction carries its ledger id, what left and the prompt-cache bytes kept; the HTML shows them", async () => {
    const report = await runReplay({
      sessions: await readSessions(join(FIXTURES, "debug-session.jsonl")),
      engines: ["compressor"],
      createEngine: async (_name, ctx) => new ContextCompressor({ contextLength: ctx.contextLength, dataDir: ctx.dataDir }),
      contextLength: 3000,
      counter: createEstimator(),
      dataDir: tmp(),
      isLossless,
      checkRecoverable,
    });
    const committed = report.sessions[0]!.runs[0]!.compactions.filter((c) => c.outcome === "committed");
    expect(committed.length).toBeGreaterThan(0);
    committed.forEach((c, i) => {
      expect(c.ledger).toMatchObject({ id: `c${i + 1}`, engine: "compressor" });
      expect(c.ledger!.removed).toBe(c.detail!.replacedCount);
      expect(c.ledger!.cache.identicalPrefixBytes).toBeLessThanOrEqual(c.ledger!.cache.bytesBefore);
      expect(c.ledger!.cache.identicalPrefixBytes).toBeGreaterThan(0);
    });
    // Survives the JSON report (replay --json writes the report object).
    expect(JSON.parse(JSON.stringify(report)).sessions[0].runs[0].compactions.find((c: { outcome: string }) => c.outcome === "committed").ledger.id).toBe("c1");
    const html = compactionsSection(report.sessions[0]!, 0, () => "#888");
    expect(html).toMatch(/Ledger c1 \(compressor\): \d+ messages? left the context, kept whole in the ledger; \d+ put in\. Prompt cache: [\d,]+ of [\d,]+ request bytes identical/);
  });
});
