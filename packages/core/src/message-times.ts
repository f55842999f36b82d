/** The latest time taken as a message's time: 2200-01-01 (a value 1000× too large is a unit mistake, not a date). */
const LATEST_MS = 7_258_118_400_000;

/**
 * A host's `messageTimes` for a list of `length` messages, checked: null when it is absent or does not
 * line up with the list (then the engine uses its own clock for every message), else one entry per
 * message with anything that is not a whole epoch-millisecond time between 1970 and 2200 as null.
 */
export function acceptMessageTimes(times: unknown, length: number): (number | null)[] | null {
  if (!Array.isArray(times) || times.length !== length) return null;
  return times.map((t) => (typeof t === "number" && Number.isSafeInteger(t) && t > 0 && t < LATEST_MS ? t : null));
}
