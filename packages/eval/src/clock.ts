/**
 * A virtual clock for the replays: `Date.now()` starts at a fixed instant and
 * advances 1 ms per call. Engines stamp stored messages and summaries with
 * it, so ids and tie-breaks that depend on time repeat from run to run
 * (a replay of hundreds of messages otherwise lands on a few real
 * milliseconds, differently each time).
 */
const EPOCH = Date.UTC(2026, 0, 1);
const realNow = Date.now.bind(Date);
let virtual = EPOCH;

export function resetVirtualClock(): void {
  virtual = EPOCH;
  Date.now = () => ++virtual;
}

export function restoreRealClock(): void {
  Date.now = realNow;
}
