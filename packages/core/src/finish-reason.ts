/**
 * Providers spell "the answer was cut off" and "the answer was blocked" in
 * many ways: OpenAI `length`, Anthropic and Bedrock `max_tokens` and
 * `model_context_window_exceeded`, Gemini `MAX_TOKENS`, the Responses API's
 * status `incomplete` with `max_output_tokens`, Mistral `model_length`,
 * Cohere `MAX_TOKENS`, the AI SDK's `length` / `content-filter`. They are
 * classified by meaning after folding case and separators.
 */

export type FinishClass = "truncated" | "filtered" | "other";

const TRUNCATED =
  /(?:^|_)(?:length|max(?:imum)?_?(?:output_?|completion_?|new_?)?tokens?|token_?limit|tokens?_?(?:limit|exceeded)|output_?limit|incomplete|truncat\w*|cut_?off|model_?length|context_?(?:window|length)(?:_?exceeded)?|max_?length|limit_?reached|pause_?turn)(?:_|$)/;
const FILTERED =
  /(?:^|_)(?:content_?filter(?:ed)?|filtered|safety|recitation|blocklist|prohibited_?content|spii|refusal|refused|blocked|image_?safety)(?:_|$)/;

/** A finish reason folded to lower case with `_` for every separator (`MAX_TOKENS`, `max-tokens`, `maxTokens`). */
function fold(reason: string): string {
  return reason
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** Whether a finish reason says the answer was truncated, filtered, or neither. */
export function classifyFinishReason(reason: unknown): FinishClass {
  if (typeof reason !== "string" || !reason.trim()) return "other";
  const folded = fold(reason);
  if (TRUNCATED.test(folded)) return "truncated";
  if (FILTERED.test(folded)) return "filtered";
  return "other";
}

/**
 * The finish reason of a response in any of the shapes providers and hosts
 * use: `finishReason`, `finish_reason`, `stop_reason`, `stopReason`,
 * `done_reason`, a Responses-API `status: "incomplete"` with its
 * `incomplete_details.reason`, or the first choice's `finish_reason`.
 */
export function finishReasonOf(response: unknown): string | null {
  if (!response || typeof response !== "object") return null;
  const r = response as Record<string, unknown>;
  for (const key of ["finishReason", "finish_reason", "stopReason", "stop_reason", "done_reason", "doneReason"]) {
    const value = r[key];
    if (typeof value === "string" && value) return value;
    if (value && typeof value === "object" && typeof (value as { unified?: unknown }).unified === "string") return (value as { unified: string }).unified;
  }
  const details = r.incomplete_details ?? r.incompleteDetails;
  const detailReason = details && typeof details === "object" ? (details as { reason?: unknown }).reason : undefined;
  if (typeof detailReason === "string" && detailReason) return detailReason;
  if (r.status === "incomplete") return "incomplete";
  const choice = Array.isArray(r.choices) ? (r.choices[0] as Record<string, unknown> | undefined) : undefined;
  return choice ? finishReasonOf(choice) : null;
}
