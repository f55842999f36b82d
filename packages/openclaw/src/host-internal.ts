import type { OcAgentMessage } from "./openclaw-types.js";

/**
 * OpenClaw runs some work as sessions of their own that are not the user's
 * conversation: memory flush, heartbeat and other suppressed effects run as
 * `internal-session-effects-<run>` (session key `agent:<id>:internal-session-effects:<run>`).
 * They get OpenClaw's messages unchanged and are never handed to the engine.
 */
const INTERNAL_SEGMENT = "internal-session-effects";

export function isHostInternalSession(sessionId: unknown, sessionKey?: unknown): boolean {
  if (typeof sessionId === "string" && sessionId.startsWith(`${INTERNAL_SEGMENT}-`)) return true;
  if (typeof sessionKey !== "string" || !sessionKey.startsWith("agent:")) return false;
  const agentEnd = sessionKey.indexOf(":", 6);
  return agentEnd >= 0 && sessionKey.startsWith(`${INTERNAL_SEGMENT}:`, agentEnd + 1);
}

/**
 * After a crash, OpenClaw's restart recovery re-runs the interrupted turn: the
 * user's own words come back only inside the run's prompt, after this marker
 * line and before a blank line, while the committed turn holds just the
 * recovery prompt. The user's text, or null.
 */
const QUEUED_MARKER = "[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]";

export function queuedUserText(prompt: string | undefined): string | null {
  if (!prompt) return null;
  const at = prompt.indexOf(QUEUED_MARKER);
  if (at < 0) return null;
  const rest = prompt.slice(at + QUEUED_MARKER.length).replace(/^\r?\n/, "");
  const end = rest.search(/\r?\n\r?\n/);
  const text = (end < 0 ? rest : rest.slice(0, end)).trim();
  return text || null;
}

/** Whether some user message of the turn already carries `text` (then nothing is added). */
export function turnHasUserText(turn: readonly OcAgentMessage[], text: string): boolean {
  return turn.some((m) => {
    if (m?.role !== "user") return false;
    const content = m.content;
    const plain = typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => (p?.type === "text" ? p.text : "")).join("\n") : "";
    return plain.includes(text);
  });
}
