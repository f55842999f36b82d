import { normalizeUsage } from "@context-engine/core";
import type { Usage } from "@context-engine/core";
import type { OcAgentMessage, OcPromptCacheUsage } from "./openclaw-types.js";

function n(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * pi-ai usage (or OpenClaw's prompt-cache `lastCallUsage`) → core `Usage`.
 * pi-ai's `input` excludes cached tokens, so the prompt is input + cache read + cache write.
 */
export function usageFromOpenClaw(raw: unknown): Usage | null {
  if (!raw || typeof raw !== "object") return null;
  const u = raw as OcPromptCacheUsage & { contextUsage?: { state?: string; promptTokens?: number } };
  const input = n(u.input);
  const cacheRead = n(u.cacheRead);
  const cacheWrite = n(u.cacheWrite);
  const output = n(u.output);
  const context = u.contextUsage?.state === "available" ? n(u.contextUsage.promptTokens) : 0;
  const prompt = context || input + cacheRead + cacheWrite;
  if (prompt === 0 && output === 0) return null;
  return normalizeUsage({
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
  });
}

/** Usage of the last assistant message in a list that reported any. */
export function lastAssistantUsage(messages: readonly OcAgentMessage[]): Usage | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; usage?: unknown } | undefined;
    if (m?.role === "assistant") {
      const usage = usageFromOpenClaw(m.usage);
      if (usage) return usage;
    }
  }
  return null;
}
