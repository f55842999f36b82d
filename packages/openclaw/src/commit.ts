import type { Message, TurnCompleteMeta } from "@context-engine/core";
import { toOpenAiMessages } from "./convert-to-openai.js";
import { queuedUserText, turnHasUserText } from "./host-internal.js";
import type { OcAgentMessage, OcUserMessage } from "./openclaw-types.js";

/** What one committed OpenClaw turn hands the engine: the transcript and the turn's identity. */
export interface CommittedTurn {
  /** History before the turn (as of the turn-start assemble) plus the turn, converted. */
  transcript: Message[];
  /** The turn as handed over (OpenClaw's messages, a recovered user text first where it was added). */
  handed: OcAgentMessage[];
  meta: Pick<TurnCompleteMeta, "turnId" | "turnMessages" | "messageIds">;
}

/** OpenClaw's own id of a message where it carries one (transcript entry ids); null otherwise. */
function messageIdOf(message: unknown): string | null {
  if (!message || typeof message !== "object") return null;
  const m = message as { id?: unknown; entryId?: unknown; __openclaw?: { id?: unknown } };
  for (const v of [m.id, m.entryId, m.__openclaw?.id]) if (typeof v === "string" && v) return v;
  return null;
}

/**
 * The turn as OpenClaw committed it, keyed by its advancement key. A turn
 * re-run by OpenClaw's crash recovery carries only the recovery prompt; the
 * user's own queued words (merged into the run's prompt) are handed over
 * with it, in the form OpenClaw shows the turn afterwards, so they are kept once.
 */
export function committedTurn(key: string, turn: readonly OcAgentMessage[], history: readonly OcAgentMessage[] | null, prompt: string | undefined): CommittedTurn {
  const queued = queuedUserText(prompt);
  const fullTurn: OcAgentMessage[] = queued && !turnHasUserText(turn, queued) ? withRecoveredText(turn, queued) : [...turn];
  // OpenClaw's own summaries of earlier history are not history the engine should keep: what they summarise
  // was handed over already (and a summary stored beside it would be kept twice, in other words).
  const kept = (history ?? []).filter((m) => !isHostSummary(m));
  // One conversion for both lists, so the turn's messages are the very tail of the transcript.
  const converted = toOpenAiMessages([...kept, ...fullTurn]).messages;
  const turnConverted = toOpenAiMessages(fullTurn).messages;
  const turnMessages = converted.slice(converted.length - turnConverted.length);
  const ids = fullTurn.filter((m) => toOpenAiMessages([m]).messages.length > 0).map(messageIdOf);
  return {
    transcript: converted,
    handed: fullTurn,
    meta: {
      turnId: key,
      turnMessages,
      ...(ids.some((id) => id !== null) && ids.length === turnMessages.length ? { messageIds: ids } : {}),
    },
  };
}

/**
 * The recovered turn in the form OpenClaw's transcript shows it afterwards: the user's message stays in
 * the transcript right before the recovery prompt, and OpenClaw merges adjacent user messages into one
 * (`mergeConsecutiveUserTurns`: the parts of both, text as text parts). Handed over in that form, the
 * next list's copy is the stored message; handed over apart, it was stored a second time (a real run).
 */
function withRecoveredText(turn: readonly OcAgentMessage[], queued: string): OcAgentMessage[] {
  const queuedPart = { type: "text" as const, text: queued };
  const [first, ...rest] = turn;
  if (first?.role === "user") {
    const prompt = first as OcUserMessage;
    const merged: OcUserMessage = { ...prompt, content: [queuedPart, ...userParts(prompt.content)] };
    return [merged, ...rest];
  }
  const at = (first as { timestamp?: unknown } | undefined)?.timestamp;
  const recovered: OcUserMessage = { role: "user", content: [queuedPart], timestamp: typeof at === "number" ? at : Date.now() };
  return [recovered, ...turn];
}

function userParts(content: OcUserMessage["content"]): Exclude<OcUserMessage["content"], string> {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

function isHostSummary(message: OcAgentMessage): boolean {
  const role = (message as { role?: unknown }).role;
  return role === "compactionSummary" || role === "branchSummary";
}
