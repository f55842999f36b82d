/**
 * What started a compaction, in plain words: the host's trigger names
 * (`preflight`, `pre_api`, …) are its own vocabulary, not the reader's.
 */
const WORDS: Record<string, { short: string; long: string }> = {
  preflight: { short: "turn start", long: "over the threshold when the turn started" },
  maintenance: { short: "engine's own", long: "the engine asked for it when the turn started" },
  pre_api: { short: "before a request", long: "over the threshold before a request to the model" },
  post_tool: { short: "after tool results", long: "over the threshold after tool results came back" },
  overflow: { short: "model refused", long: "the model refused the request as too long" },
  over_window: { short: "would not fit", long: "the next request would not fit the window" },
  manual: { short: "manual", long: "manual: /compress" },
  auto: { short: "automatic", long: "automatic" },
};

/** A short label for tables (`before a request`). */
export function triggerLabel(trigger: string): string {
  return WORDS[trigger]?.short ?? trigger.replace(/_/g, " ");
}

/** A phrase for prose (`over the threshold before a request to the model`). */
export function triggerPhrase(trigger: string): string {
  return WORDS[trigger]?.long ?? trigger.replace(/_/g, " ");
}
