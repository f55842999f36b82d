import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { engineNameProblem, nextSteps, scaffoldEngine, shellQuote } from "../src/index.js";

/** Names npm refuses, and next-steps lines that must run nothing but `cd` when pasted into a shell. */

const root = mkdtempSync(join(tmpdir(), "cce-names-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("engine names npm refuses", () => {
  it("core module names and node_modules are refused with the reason; other valid names pass", () => {
    const core = builtinModules.map((m) => m.replace(/^node:/, "")).filter((m) => /^[a-z][a-z0-9_-]*$/.test(m));
    fc.assert(
      fc.property(fc.constantFrom(...core, "node_modules"), (name) => {
        expect(engineNameProblem(name), name).toMatch(/npm refuses it/);
        expect(() => scaffoldEngine({ directory: join(root, `x-${name}`), name })).toThrow(/npm refuses it/);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/), (name) => {
        fc.pre(!core.includes(name) && name !== "node_modules");
        expect(engineNameProblem(name)).toBeNull();
      }),
    );
  });
});

describe("the next-steps cd line", () => {
  /** What a POSIX shell makes of `cd <word>` pasted: the arguments `cd` receives, and nothing else runs. */
  function shellWords(line: string): string[] {
    const out = spawnSync("sh", ["-c", `set -- ${line}; for a in "$@"; do printf '%s\\0' "$a"; done`], { encoding: "utf8" });
    expect(out.status, out.stderr).toBe(0);
    return out.stdout.split("\0").slice(0, -1);
  }

  it("quotes any directory so pasting it passes exactly that path and runs nothing", () => {
    const piece = fc.constantFrom("a", "b c", "$(touch PWNED)", "`touch PWNED`", "; touch PWNED", "'", '"', "\\", "*", "?", "~", "&&", "|", ">x", "\n", "\t", "-rf", "é", "$HOME", "!", "#", "{a,b}");
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), (pieces) => {
        const rel = pieces.join("");
        const quoted = shellQuote(rel);
        const words = shellWords(quoted);
        expect(words).toEqual([rel.startsWith("-") ? `./${rel}` : rel]);
      }),
      { numRuns: 150 },
    );
  });

  it("nextSteps uses it for a directory with a crafted name", () => {
    const dir = join(root, "proj $(touch PWNED); x");
    const result = scaffoldEngine({ directory: dir, name: "crafted-engine" });
    const text = nextSteps(result, root);
    const cdLine = text.split("\n").find((l) => l.trimStart().startsWith("cd "))!;
    expect(shellWords(cdLine.trim().slice(3))).toEqual(["proj $(touch PWNED); x"]);
  });
});
