/** The latest time taken as a message's time: 2200-01-01 (a value 1000× too large is a unit mistake, not a date). */
const LATEST_MS = 7_258_118_400_000;

/** One message time as a host sent it: whole epoch milliseconds from 1970 to 2200, else null (use the engine's clock). */
export function acceptMessageTime(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= LATEST_MS ? value : null;
}

/**
 * A host's `messageTimes` for a list of `length` messages, checked: null when it is absent or does not
 * line up with the list (then the engine uses its own clock for every message), else one entry per
 * message, each checked by `acceptMessageTime`. O(list): an engine that only stores what is new checks
 * the length and reads the entries it stores with `acceptMessageTime`.
 */
export function acceptMessageTimes(times: unknown, length: number): (number | null)[] | null {
  if (!Array.isArray(times) || times.length !== length) return null;
  return times.map(acceptMessageTime);
}
