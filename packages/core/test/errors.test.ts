import { describe, expect, it } from "vitest";
import { DeadlineExceededError, describeError, raceAbort, raceAbortOrNull, withDeadline } from "../src/index.js";

describe("describeError", () => {
  it("describes any thrown value in one string, never throwing", () => {
    expect(describeError(new Error("boom"))).toBe("boom");
    expect(describeError("text")).toBe("text");
    expect(describeError({ code: 1 })).toBe('{"code":1}');
    expect(describeError(10n)).toBe("10");
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(describeError(loop)).toBe("[object Object]");
  });
});

describe("raceAbort", () => {
  it("rejects with the signal's reason as soon as it aborts; the OrNull variant resolves null", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => {});
    const raced = raceAbort(never, controller.signal);
    const orNull = raceAbortOrNull(never, controller.signal);
    controller.abort(new Error("stop"));
    await expect(raced).rejects.toThrow("stop");
    await expect(orNull).resolves.toBeNull();
    await expect(raceAbort(Promise.resolve(3), new AbortController().signal)).resolves.toBe(3);
    await expect(raceAbortOrNull(Promise.reject(new Error("own")), new AbortController().signal)).rejects.toThrow("own");
  });
});

describe("withDeadline", () => {
  it("rejects past the bound and reports the late settle once", async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const late: string[] = [];
    const bounded = withDeadline(slow, 10, "slow thing", (outcome) => late.push(outcome));
    await expect(bounded).rejects.toBeInstanceOf(DeadlineExceededError);
    release();
    await new Promise((r) => setTimeout(r, 5));
    expect(late).toEqual(["resolved"]);
    await expect(withDeadline(Promise.resolve(1), 0, "unbounded")).resolves.toBe(1);
  });
});
