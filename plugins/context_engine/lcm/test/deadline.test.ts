import { describe, expect, it } from "vitest";
import { deadlineSignal } from "../src/deadline.js";

const waitFor = (signal: AbortSignal) => new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

describe("deadlineSignal", () => {
  it("aborts with a TimeoutError when the time is up, even with nothing else holding it", async () => {
    const { signal } = deadlineSignal(20);
    const reason = (await waitFor(signal)) as DOMException;
    expect(reason.name).toBe("TimeoutError");
  });

  it("follows the stop signal, at once when it is already aborted", async () => {
    const stop = new AbortController();
    const d = deadlineSignal(60_000, stop.signal);
    stop.abort(new Error("closing"));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).message).toBe("closing");
    d.clear();
    const already = deadlineSignal(60_000, stop.signal);
    expect(already.signal.aborted).toBe(true);
    already.clear();
  });

  it("clear() ends the timer and leaves the stop signal without its listener", async () => {
    const stop = new AbortController();
    const d = deadlineSignal(10, stop.signal);
    d.clear();
    await new Promise((r) => setTimeout(r, 40));
    expect(d.signal.aborted).toBe(false);
    stop.abort();
    expect(d.signal.aborted).toBe(false);
  });
});
