import type { Message } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectDroppedFacts, renderDroppedFacts } from "../src/dropped-facts.js";
import { commandLine, errorLines, numbersIn, pathsIn } from "../src/fact-patterns.js";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { expectValid } from "./helpers.js";

/** Names and words built from a small alphabet: the generated facts never collide with the filler. */
const name = fc.stringMatching(/^[a-z][a-z_]{2,9}$/);
const word = fc.stringMatching(/^[a-z]{3,8}$/);

/** Error lines of the shapes the definition names, each with a distinct generated part. */
const errorLine = fc.oneof(
  fc.tuple(name, name).map(([cls, v]) => `${cls.replace(/^./, (c) => c.toUpperCase())}Error: name '${v}' is not defined`),
  fc.tuple(name, fc.integer({ min: 1, max: 9999 })).map(([f, n]) => `src/${f}.c:${n}:7: error: expected ';' before '}' token`),
  fc.tuple(name, name).map(([f, t]) => `FAILED tests/test_${f}.py::test_${t} - AssertionError`),
  fc.tuple(name, fc.integer({ min: 1, max: 255 })).map(([cmd, n]) => `${cmd} exited with code ${n}`),
  fc.tuple(name, fc.integer({ min: 1, max: 9999 })).map(([f, n]) => `error[E0308]: mismatched types in ${f} at ${n}`),
);

/** Numbers with the key or unit that gives them meaning. */
const keyedNumber = fc.oneof(
  fc.tuple(name, fc.integer({ min: 0, max: 99_999 })).map(([k, n]) => `${k}=${n}`),
  fc.tuple(name, fc.integer({ min: 0, max: 99_999 })).map(([k, n]) => `${k}: ${n}`),
  fc.integer({ min: 1, max: 9_999 }).map((n) => `took ${n}ms`),
);

/**
 * A coding session: the generated line comes back in a tool result after the
 * protected opening rounds, then many rounds of filler push it out of the tail.
 */
function sessionWith(line: string, filler: string): Message[] {
  const out: Message[] = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Make the build green." }];
  const round = (id: string, command: string, result: string) => {
    out.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }] } as Message);
    out.push({ role: "tool", tool_call_id: id, content: result } as Message);
  };
  for (let i = 0; i < 4; i++) round(`c_open${i}`, `ls dir_${i}`, `${filler} `.repeat(40));
  round("c_build", "make build", `building\n${line}\nstopped`);
  for (let i = 0; i < 40; i++) round(`c${i}`, `cat notes_${i}.txt`, `${filler} `.repeat(120));
  return out;
}

async function summaryAfterCompaction(messages: Message[]): Promise<string> {
  const engine = new ContextCompressor({ contextLength: 16_000 });
  const out = await engine.compress(messages, { sessionId: "s" });
  expectValid(out);
  const summary = out.find(isSummaryMessage);
  expect(summary, "a compaction happened").toBeDefined();
  return contentText(summary!.content);
}

describe("the compressor's own definition of a fact", () => {
  it("finds error lines by their structure, with the frame nearest a failure", () => {
    const out = errorLines(
      [
        "Traceback (most recent call last):",
        '  File "/repo/app/main.py", line 12, in <module>',
        '  File "/repo/app/util.py", line 40, in load',
        "KeyError: 'config'",
        "    except KeyError as exc:",
        "all good here, nothing to see",
      ].join("\n"),
    );
    const tier = (t: string) => out.find((f) => f.text === t)?.tier;
    expect(tier("KeyError: 'config'")).toBe(0);
    expect(tier('File "/repo/app/util.py", line 40, in load')).toBe(0);
    // The frames above the nearest one are not kept; the header only names the failure.
    expect(tier('File "/repo/app/main.py", line 12, in <module>')).toBeUndefined();
    expect(tier("Traceback (most recent call last):")).toBe(1);
    expect(tier("except KeyError as exc:")).toBe(1);
    expect(tier("all good here, nothing to see")).toBeUndefined();
  });

  it("ranks error diagnostics of linters and compilers as failures, warnings and advice below them", () => {
    const out = errorLines(
      [
        "pkg/a.py:7:7: E0712: Catching an exception which doesn't inherit from Exception: FooError (catching-non-exception)",
        "pkg/b.py:1:1: F401 'os' imported but unused",
        "src/app.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
        "error TS18003: No inputs were found in config file 'tsconfig.json'.",
        "pkg/a.py:3:7: W0703: Catching too general exception Exception (broad-except)",
        "pkg/a.py:1:0: C0114: Missing module docstring (missing-module-docstring)",
        "warning: unused variable: `total`",
      ].join("\n"),
    );
    const tier = (t: string) => out.find((f) => f.text === t)?.tier;
    expect(tier("pkg/a.py:7:7: E0712: Catching an exception which doesn't inherit from Exception: FooError (catching-non-exception)")).toBe(0);
    expect(tier("pkg/b.py:1:1: F401 'os' imported but unused")).toBe(0);
    expect(tier("src/app.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.")).toBe(0);
    expect(tier("error TS18003: No inputs were found in config file 'tsconfig.json'.")).toBe(0);
    expect(tier("pkg/a.py:3:7: W0703: Catching too general exception Exception (broad-except)")).toBe(1);
    expect(tier("pkg/a.py:1:0: C0114: Missing module docstring (missing-module-docstring)")).toBe(1);
    expect(tier("warning: unused variable: `total`")).toBe(1);
  });

  it("finds make's and pytest's failure lines, and the line that closes a traceback whatever its class", () => {
    const out = errorLines(
      [
        "make: *** [Makefile:20: html] Error 2",
        "make[1]: *** [build/lib.o] Error 1",
        "tests/test_domain.py::test_xrefs FAILED                     [100%]",
        "tests/test_domain.py::test_setup ERROR                      [ 50%]",
        "tests/test_domain.py::test_ok PASSED                        [ 25%]",
        "Traceback (most recent call last):",
        '  File "/repo/manage.py", line 22, in <module>',
        "    main()",
        "django.core.exceptions.ImproperlyConfigured: settings are not configured",
        "",
        "Done in 3 steps",
      ].join("\n"),
    );
    const tier = (t: string) => out.find((f) => f.text === t)?.tier;
    expect(tier("make: *** [Makefile:20: html] Error 2")).toBe(0);
    expect(tier("make[1]: *** [build/lib.o] Error 1")).toBe(0);
    expect(tier("tests/test_domain.py::test_xrefs FAILED                     [100%]")).toBe(0);
    expect(tier("tests/test_domain.py::test_setup ERROR                      [ 50%]")).toBe(0);
    expect(tier("tests/test_domain.py::test_ok PASSED                        [ 25%]")).toBeUndefined();
    expect(tier("django.core.exceptions.ImproperlyConfigured: settings are not configured")).toBe(0);
    // The frame nearest the failure comes with it; a line after the traceback (a blank line ended it) is not a failure.
    expect(tier('File "/repo/manage.py", line 22, in <module>')).toBe(0);
    expect(tier("Done in 3 steps")).toBeUndefined();
  });

  it("counts a line naming the bare Error or Exception class, or any class ending so, as a weaker candidate", () => {
    const out = errorLines(["    except Exception as exc:", '        print(f"Error: {exc}")', "        raise self.failureException(msg)", "    return value + 1"].join("\n"));
    expect(out).toEqual([
      { text: "except Exception as exc:", tier: 1 },
      { text: 'print(f"Error: {exc}")', tier: 1 },
      { text: "raise self.failureException(msg)", tier: 1 },
    ]);
  });

  it("keeps a number with its key or unit, and versions whole", () => {
    const texts = numbersIn("retries=3 timeout: 30s took 812ms on v2.4.1, code 404 of 12 MB, in 2019").map((f) => f.text);
    expect(texts).toEqual(expect.arrayContaining(["retries=3", "timeout: 30s", "took 812ms", "v2.4.1", "code 404", "12 MB", "2019"]));
    // A prose word is not a key.
    expect(texts).not.toContain("in 2019");
  });

  it("finds paths and URLs as written, not fractions or dates", () => {
    const texts = pathsIn("see (src/app/main.py:12:3), https://example.org/a/b.html; 1/2 and 2024/01/02").map((f) => f.text);
    expect(texts).toEqual(["src/app/main.py", "https://example.org/a/b.html"]);
  });

  it("names a tool call by its shell command or by its name and scalar arguments", () => {
    expect(commandLine("bash", JSON.stringify({ command: "pytest -x tests\nsecond line" }))).toBe("pytest -x tests");
    expect(commandLine("editor", JSON.stringify({ command: "view", path: "/repo/a.py", line: 12 }))).toBe("editor view /repo/a.py 12");
  });

  it("says each fact once: one a chosen fact contains, or the kept messages hold, is left out", () => {
    const facts = { command: [], error: ["ValueError: bad value in src/app/x.py"], path: ["src/app/x.py", "src/app/y.py"], number: ["line 42", "line 57"] };
    const text = renderDroppedFacts(facts, 1_000, (t) => t === "src/app/y.py");
    expect(text).not.toMatch(/Paths:/);
    // Values of one key share it: the first reads verbatim.
    expect(text).toContain("Numbers: line 42, 57");
  });
});

describe("dropped facts reach the summary (generated sessions)", () => {
  it("a dropped error line appears verbatim in the summary", async () => {
    await fc.assert(
      fc.asyncProperty(errorLine, word, async (line, filler) => {
        const summary = await summaryAfterCompaction(sessionWith(line, filler));
        expect(summary).toContain(line);
      }),
      { numRuns: 25 },
    );
  });

  it("a dropped number with its key appears verbatim in the summary", async () => {
    await fc.assert(
      fc.asyncProperty(keyedNumber, word, async (fact, filler) => {
        const summary = await summaryAfterCompaction(sessionWith(`status ok, ${fact}, done`, filler));
        expect(summary).toContain(fact);
      }),
      { numRuns: 25 },
    );
  });

  it("secrets in a dropped error line are redacted, the rest of the line kept", async () => {
    const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    const summary = await summaryAfterCompaction(sessionWith(`fatal: could not read from remote https://x:${secret}@github.com/org/repo.git`, "lorem"));
    expect(summary).not.toContain(secret);
    expect(summary).toContain("fatal: could not read from remote");
    const facts = collectDroppedFacts(sessionWith(`PermissionError: token=${secret} rejected`, "lorem"));
    expect(JSON.stringify(facts)).not.toContain(secret);
  });
});
