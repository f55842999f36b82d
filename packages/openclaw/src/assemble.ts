import { acceptSelection, defaultTokenCounter, overridesHook } from "@context-engine/core";
import type { Logger, Message } from "@context-engine/core";
import { assistantTemplateOf, fromOpenAiMessages } from "./convert-from-openai.js";
import { fingerprint, toOpenAiMessages } from "./convert-to-openai.js";
import type { OriginIndex } from "./convert-to-openai.js";
import { estimateAgentTokens } from "./estimate.js";
import { acceptMessages, bounded, guarded } from "./guard.js";
import type { OcAgentMessage, OcAssembleParams, OcAssembleResult } from "./openclaw-types.js";
import type { SessionEntry } from "./sessions.js";

export interface AssembleDeps {
  timeoutMs: number;
  logger: Logger;
}

/** The unmodified host messages: what OpenClaw sends when the engine decides nothing (or fails). */
function passThrough(messages: OcAgentMessage[]): OcAssembleResult {
  return { messages, estimatedTokens: estimateAgentTokens(messages) };
}

/**
 * Build the working list: the engine's compacted view (if any) plus the host
 * messages after what it covers. A host transcript that no longer extends the
 * covered prefix (rewritten elsewhere) drops the view.
 */
export function workingList(
  entry: SessionEntry,
  host: readonly OcAgentMessage[],
): { working: Message[]; origins: OriginIndex; hostConverted: Message[] } {
  const converted = toOpenAiMessages(host);
  if (entry.view && host.length >= entry.coveredCount && entry.coveredCount > 0) {
    const last = converted.messages[entry.coveredCount - 1];
    if (last && fingerprint(last) === entry.coveredFingerprint) {
      const working = [...entry.view, ...converted.messages.slice(entry.coveredCount)];
      return { working, origins: converted.origins, hostConverted: converted.messages };
    }
  }
  entry.view = null;
  entry.coveredCount = 0;
  return { working: converted.messages, origins: converted.origins, hostConverted: converted.messages };
}

/** Record `messages` as the engine's view of all host messages seen so far. */
export function adoptView(entry: SessionEntry, messages: Message[], hostConverted: readonly Message[]): void {
  entry.view = messages;
  entry.coveredCount = hostConverted.length;
  const last = hostConverted[hostConverted.length - 1];
  entry.coveredFingerprint = last ? fingerprint(last) : "";
}

export async function assembleWithEngine(entry: SessionEntry, params: OcAssembleParams, deps: AssembleDeps): Promise<OcAssembleResult> {
  const host = params.messages;
  if (!Array.isArray(host)) return { messages: [], estimatedTokens: 0 };
  const engine = entry.engine;
  const tokens = params.runtimeContext?.currentTokenCount ?? (engine.lastPromptTokens > 0 ? engine.lastPromptTokens : undefined);
  const wantsCompress = guarded("shouldCompress", deps.logger, () => engine.shouldCompress(tokens));
  const compress = wantsCompress.ok && wantsCompress.value === true;
  const selects = overridesHook(engine, "selectContext");
  entry.lastHost = host;
  // The no-op path: nothing to convert, OpenClaw keeps its own list object.
  if (!compress && !selects && !entry.view) return passThrough(host);

  const { working, origins, hostConverted } = workingList(entry, host);
  let current = working;
  if (compress) {
    // The engine's own copy: one that edits it and then throws leaves the view untouched.
    const given = structuredClone(working);
    const outcome = await bounded("compress", deps.timeoutMs, deps.logger, (signal) =>
      engine.compress(given, { signal, sessionId: entry.sessionId, ...(tokens !== undefined ? { currentTokens: tokens } : {}) }),
    );
    const checked = outcome.ok ? acceptMessages(working, outcome.value) : null;
    if (checked && !checked.ok) deps.logger.warn(`[context-engine/openclaw] compress result rejected: ${checked.reason}`);
    if (checked?.ok && !sameMessages(checked.value, working)) {
      current = checked.value;
      adoptView(entry, current, hostConverted);
    }
  }
  if (selects) {
    const outcome = await bounded("selectContext", deps.timeoutMs, deps.logger, () =>
      engine.selectContext(structuredClone(current), {
        conversationMessages: structuredClone(current),
        budgetTokens: params.tokenBudget ?? engine.contextLength ?? 0,
        sessionId: entry.sessionId,
      }),
    );
    // null, undefined, [] and non-message items fall open silently (the contract's "no selection"); anything else is checked.
    const chosen = outcome.ok ? guarded("selectContext result", deps.logger, () => acceptSelection(current, outcome.value)) : null;
    if (chosen?.ok && chosen.value !== current) {
      const checked = acceptMessages(current, chosen.value);
      if (!checked.ok) deps.logger.warn(`[context-engine/openclaw] selectContext result rejected: ${checked.reason}`);
      else current = checked.value;
    }
  }
  if (current === hostConverted || sameMessages(current, hostConverted)) return passThrough(host);
  const back = fromOpenAiMessages(current, origins, assistantTemplateOf(host));
  const result: OcAssembleResult = { messages: back.messages, estimatedTokens: defaultTokenCounter.countMessages(current) };
  if (back.systemText) result.systemPromptAddition = back.systemText;
  return result;
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (fingerprint(a[i]!) !== fingerprint(b[i]!)) return false;
  return true;
}
