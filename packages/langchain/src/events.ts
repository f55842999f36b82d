/** What the middleware reports; every failure here was absorbed (fail-open). */
export type AdapterEvent =
  | { type: "compaction.committed"; sessionId: string; messagesBefore: number; messagesAfter: number }
  | { type: "compaction.unchanged"; sessionId: string }
  | { type: "compaction.failed"; sessionId: string; error: string; timedOut: boolean }
  | { type: "selection.applied"; sessionId: string; messages: number }
  | { type: "selection.ignored"; sessionId: string; reason: string; failed: boolean }
  | { type: "hook.failed"; sessionId: string; hook: string; error: string }
  /** The engine failed before this model call; the fallback engine decided the compaction instead. */
  | { type: "fallback"; sessionId: string; engine: string; reason: string };

export type AdapterEventSink = (event: AdapterEvent) => void;
