import { describe, expect, it } from "vitest";
import { DeadlineExceededError, describeError, describeErrorWithCauses, raceAbort, raceAbortOrNull, withDeadline } from "../src/index.js";

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

describe("describeErrorWithCauses", () => {
  it("keeps the cause chain, with an AggregateError's errors, and redacts secrets a cause quotes", () => {
    const refused = new AggregateError([new Error("connect ECONNREFUSED ::1:5432"), new Error("connect ECONNREFUSED 127.0.0.1:5432")], "");
    const login = new Error("login failed for postgres://app:hunter2-secret-pw@db.example:5432/app", { cause: refused });
    const top = new Error("could not store the turn", { cause: login });
    const line = describeErrorWithCauses(top);
    expect(line).toMatch(/^could not store the turn; caused by: login failed/);
    expect(line).toContain("ECONNREFUSED 127.0.0.1:5432");
    expect(line).toContain("ECONNREFUSED ::1:5432");
    expect(line).not.toContain("hunter2-secret-pw");
  });

  it("stops at a cycle and at five causes; a plain value is described as describeError does", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(describeErrorWithCauses(a)).toBe("a; caused by: b");
    let deep: Error = new Error("e0");
    for (let i = 1; i < 10; i++) deep = new Error(`e${i}`, { cause: deep });
    expect(describeErrorWithCauses(deep).split("; caused by: ")).toHaveLength(6);
    expect(describeErrorWithCauses("text")).toBe("text");
    expect(describeErrorWithCauses(new Error("no cause"))).toBe("no cause");
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
