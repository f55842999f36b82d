import { checkConversation, defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";

/** A failed correctness check: the timed result it belongs to is not valid. */
export class CheckFailed extends Error {
  override readonly name = "CheckFailed";
}

/** The assembled context is a valid OpenAI conversation and fits the budget. */
export function checkContext(what: string, messages: unknown, budgetTokens: number): Message[] {
  if (!Array.isArray(messages)) throw new CheckFailed(`${what}: expected a message list, got ${typeof messages}`);
  const problems = checkConversation(messages);
  if (problems.length) throw new CheckFailed(`${what}: invalid conversation: ${problems.slice(0, 3).map((p) => p.message).join("; ")}`);
  const tokens = defaultTokenCounter.countMessages(messages as Message[]);
  if (tokens > budgetTokens) throw new CheckFailed(`${what}: ${tokens} tokens, over the budget of ${budgetTokens}`);
  return messages as Message[];
}

export interface GrepHit {
  ref: string;
  type: string;
  seq?: number;
  snippet: string;
}

export interface GrepPage {
  hits: GrepHit[];
  nextCursor: string | null;
  complete: boolean;
}

/** Parse an `lcm_grep` answer; a tool error fails the check. */
export function parseGrep(what: string, json: string): GrepPage {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CheckFailed(`${what}: lcm_grep answered non-JSON: ${json.slice(0, 120)}`);
  }
  const v = value as Partial<GrepPage> & { error?: unknown };
  if (!v || !Array.isArray(v.hits)) throw new CheckFailed(`${what}: lcm_grep failed: ${json.slice(0, 200)}`);
  return { hits: v.hits, nextCursor: v.nextCursor ?? null, complete: v.complete === true };
}

/** The page holds a message hit at the expected position (seq). */
export function expectMessageHit(what: string, page: GrepPage, seq: number): GrepHit {
  const hit = page.hits.find((h) => h.type === "message" && h.seq === seq);
  if (!hit) {
    const seen = page.hits.map((h) => `${h.ref}@${h.seq ?? "-"}`).join(", ") || "no hits";
    throw new CheckFailed(`${what}: the planted message (seq ${seq}) is not among the hits (${seen})`);
  }
  return hit;
}

/** An `lcm_expand` answer holds the expected text. */
export function expectExpanded(what: string, json: string, text: string): void {
  if (!json.includes(JSON.stringify(text).slice(1, -1))) throw new CheckFailed(`${what}: lcm_expand does not return the planted text "${text}": ${json.slice(0, 200)}`);
}
