import type { Message, SessionStartOptions } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import { runCompaction } from "../compaction/runner.js";
import type { CompactionOutcome, CompactionRequest } from "../compaction/runner.js";
import type { RequestShape } from "../ledger/prefix-impact.js";
import type { HostRuntime } from "../runtime.js";
import { callHook } from "./engine-calls.js";
import type { SessionLedgerWiring } from "./session-ledger.js";

const PASS_RUNNING = "a compaction pass for this session is still running";

/** What one compaction pass reads from its session (live), and how it hands the committed list back. */
export interface CompactionSessionAccess {
  readonly id: string;
  readonly runtime: HostRuntime;
  readonly messages: Message[];
  readonly inputBudget: number;
  readonly ledger: SessionLedgerWiring;
  readonly request: RequestShape;
  startOptions(): SessionStartOptions;
  /** The committed list becomes the session's (pins already in place); the pass is counted; usage awaits a response. */
  adopt(messages: Message[]): void;
}

/** One pass on a session's list: run by the engine, committed (and recorded in the ledger) when it changed the list. */
export async function compactSession(s: CompactionSessionAccess, request: CompactionRequest, signal?: AbortSignal): Promise<CompactionOutcome | { status: "busy" }> {
  const r = s.runtime;
  const id = s.id;
  // One pass per session at a time, counting a pass the host gave up on
  // until the engine has really finished it.
  if (r.compacting.has(id)) {
    if (request.trigger !== "manual") {
      r.bus.emit({ type: "compaction.blocked", sessionId: id, turnId: request.turnId, reason: PASS_RUNNING, tokens: request.currentTokens ?? 0 });
    }
    return { status: "busy" };
  }
  r.compacting.add(id);
  // Released when both the engine's pass and this function are done.
  let holders = 2;
  const release = () => {
    if (--holders === 0) r.compacting.delete(id);
  };
  const before = s.messages;
  try {
    const outcome = await runCompaction(before, request, {
      engine: r.engine,
      sessionId: id,
      counter: r.counter,
      bus: r.bus,
      logger: r.logger,
      timeoutSeconds: r.config.contextTimeoutSeconds,
      budgetTokens: s.inputBudget,
      messageTimes: r.clock.timesOf(before),
      signal,
      figures: r.figures,
      onSettled: release,
    });
    if (outcome.status !== "committed") return outcome;
    await commit(s, before, outcome, request);
    return outcome;
  } finally {
    release();
  }
}

async function commit(s: CompactionSessionAccess, before: Message[], outcome: Extract<CompactionOutcome, { status: "committed" }>, request: CompactionRequest): Promise<void> {
  const r = s.runtime;
  const engine = r.engine;
  const mode = r.config.compactionBoundary;
  if (mode === "end-and-start") {
    await callHook(r, s.id, request.turnId, "onSessionEnd", undefined, () => engine.onSessionEnd(s.id, cloneMessages(before)));
  }
  // The host owns the committed list from here on.
  s.adopt(s.ledger.withPins(outcome.messages.slice()));
  const after = s.messages;
  const entry = s.ledger.recordCompaction({
    sessionId: s.id,
    engine: safeEngineName(r),
    trigger: request.trigger,
    focusTopic: request.focusTopic,
    durationMs: outcome.durationMs,
    tokensBefore: outcome.tokensBefore,
    tokensAfter: outcome.tokensAfter,
    before,
    after,
    request: s.request,
  });
  try {
    engine.lastPromptTokens = -1;
    engine.lastCompletionTokens = 0;
    engine.awaitingRealUsageAfterCompression = true;
    engine.lastCompressionRoughTokens = outcome.tokensBefore;
  } catch {
    // An engine with read-only figures; the session keeps its own sentinel.
  }
  // These figures (and the pass's compressionCount) are now committed state.
  r.figures.confirm();
  r.bus.emit({
    type: "compaction.committed",
    sessionId: s.id,
    turnId: request.turnId,
    trigger: request.trigger,
    durationMs: outcome.durationMs,
    tokensBefore: outcome.tokensBefore,
    tokensAfter: outcome.tokensAfter,
    messagesBefore: before.length,
    messagesAfter: after.length,
    ledgerId: entry.id,
  });
  if (mode !== "none") {
    await callHook(r, s.id, request.turnId, "onSessionStart", undefined, () =>
      engine.onSessionStart(s.id, { ...s.startOptions(), boundaryReason: "compression", oldSessionId: s.id }),
    );
  }
}

export function safeEngineName(r: HostRuntime): string {
  try {
    return String(r.engine.name);
  } catch {
    return "(unknown)";
  }
}
