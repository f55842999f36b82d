import type { HostEvent } from "@context-engine/host";
import type { Palette } from "../format/color.js";
import { formatDuration, formatInt } from "../format/numbers.js";
import { triggerLabel } from "../format/triggers.js";

/**
 * One stderr line for the host events a chatting person should see as they
 * happen: engine tool calls, compactions, pruning, blocked compaction,
 * retries. Null for the rest.
 */
export function describeChatEvent(event: HostEvent, p: Palette): string | null {
  switch (event.type) {
    case "engine_tool.called": {
      const args = shortJson(event.args, 80);
      const outcome = event.ok ? p.green("ok") : p.red(`error: ${event.error ?? "failed"}`);
      return p.cyan(`⚙ ${event.name}(${args}) → ${outcome}${event.ok ? p.dim(` · ${formatInt(event.resultChars)} chars`) : ""}`);
    }
    case "compaction.started":
      return p.magenta(
        `⟳ compacting (${triggerLabel(event.trigger)}${event.focusTopic ? `, focus “${event.focusTopic}”` : ""}): ~${formatInt(event.tokensBefore)} tokens in ${event.messagesBefore} messages…`,
      );
    case "compaction.committed":
      return p.magenta(
        `✔ compacted ~${formatInt(event.tokensBefore)} → ~${formatInt(event.tokensAfter)} tokens, ${event.messagesBefore} → ${event.messagesAfter} messages (${formatDuration(event.durationMs)})`,
      );
    case "compaction.unchanged":
      return p.dim(`· compaction left the conversation unchanged (${formatDuration(event.durationMs)})`);
    case "compaction.failed":
      return p.yellow(`⚠ compaction failed (${event.error}); nothing was dropped`);
    case "compaction.timed_out":
      return p.yellow(`⚠ compaction timed out after ${event.timeoutSeconds}s; nothing was dropped`);
    case "compaction.blocked":
      return p.yellow(`⚠ context is over the threshold (~${formatInt(event.tokens)} tokens) but compaction is blocked: ${event.reason}. Try /compress or /new.`);
    case "tool_results.pruned":
      return p.dim(`· trimmed ${event.pruned} old tool result(s): ~${formatInt(event.tokensBefore)} → ~${formatInt(event.tokensAfter)} tokens`);
    case "provider.error":
      // Only retries are shown here; a final failure is said once when the turn ends.
      return event.willRetry ? p.yellow(`⚠ ${retryReason(event.kind, event.error.status)}; retrying${event.retryInMs ? ` in ${formatDuration(event.retryInMs)}` : ""}…`) : null;
    case "hook.failed":
      return p.yellow(`⚠ the engine's ${event.hook} failed (${event.error}); carrying on without it`);
    case "selection.ignored":
      return event.reason.startsWith("returned nothing") ? null : p.dim(`· the engine's context selection was ignored: ${event.reason}`);
    default:
      return null;
  }
}

function shortJson(value: unknown, max: number): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  } catch {
    text = String(value);
  }
  if (text.startsWith("{") && text.endsWith("}")) text = text.slice(1, -1);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function retryReason(kind: string, status: number | undefined): string {
  const http = status ? ` (HTTP ${status})` : "";
  switch (kind) {
    case "server_error":
      return `the server had an internal error${http}`;
    case "overloaded":
      return `the server is overloaded${http}`;
    case "rate_limit":
      return `rate limited${http}`;
    case "network":
      return "could not reach the server";
    case "timeout":
      return "the server did not answer in time";
    case "context_length":
      return "the request was too long for the model; compacted";
    default:
      return `the request failed (${kind}${http})`;
  }
}
