import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineLoadError, loadEngine, parseConfigText } from "../src/index.js";
import { captureLogger, engineSource, isolated, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

/** A plugin's own error text (isAvailable(), its constructor) reaches the user as the fallback reason: never with a secret in it. */

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split("");
const random = (n: number) => fc.array(fc.constantFrom(...ALNUM), { minLength: n, maxLength: n }).map((a) => a.join("")).filter((s) => /\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s));
const secret = fc.oneof(
  random(36).map((s) => ({ text: `ghp_${s}`, value: `ghp_${s}` })),
  random(16).map((s) => ({ text: `postgres://app:${s}@db.internal:5432/lcm`, value: s })),
  random(40).map((s) => ({ text: `token xoxb-1234567890-${s}`, value: s })),
  random(32).map((s) => ({ text: `whsec_${s}`, value: s })),
  random(20).map((s) => ({ text: `password=${s}`, value: s })),
);

describe("fallback reasons and load errors are redacted", () => {
  it("an isAvailable() error and a constructor error never show the secret they carry", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(secret, fc.constantFrom("isAvailable", "constructor"), async ({ text, value }, where) => {
        // A fresh plugin name per run: a module is imported once per path.
        const name = `p${run++}`;
        const thrower = `throw new Error(${JSON.stringify(`cannot connect to ${text}`)});`;
        const source =
          where === "constructor"
            ? engineSource(name).replace("super();", `super(); ${thrower}`)
            : engineSource(name, { extra: `E.prototype.isAvailable = async () => { ${thrower} };`, className: "E" });
        writePlugin(box, "bundled", name, source);
        const logger = captureLogger();
        const loaded = await loadEngine(parseConfigText("", "config.yaml").config!, {}, { ...isolated(box, logger), defaultEngine: name });
        expect(loaded.name).toBe("compressor");
        expect(loaded.fallbackReason).toMatch(/\[REDACTED:/);
        expect(loaded.fallbackReason).not.toContain(value);
        expect(logger.warnings().join("\n")).not.toContain(value);
        const cfg = parseConfigText(`context:\n  engine: ${name}\n`, "config.yaml").config!;
        const error = await loadEngine(cfg, {}, isolated(box)).then(
          () => null,
          (e: unknown) => e,
        );
        if (where === "constructor") {
          expect(EngineLoadError.is(error)).toBe(true);
          expect(String((error as Error).message)).not.toContain(value);
          expect((error as EngineLoadError).reason).not.toContain(value);
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe("the environment reaches engines", () => {
  it("the env given to loadEngine is the engine's ctx.env (store_env and the like read it, not process.env)", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,12}$/), fc.string({ minLength: 1, maxLength: 20 }), async (key, value) => {
        fc.pre(process.env[key] === undefined);
        const name = `envy${run++}`;
        writePlugin(box, "bundled", name, engineSource(name));
        const cfg = parseConfigText(`context:\n  engine: ${name}\n`, "config.yaml").config!;
        const loaded = await loadEngine(cfg, {}, { ...isolated(box), env: { [key]: value } });
        const seen = (loaded.engine as unknown as { initContext: { env?: Record<string, string> } }).initContext.env;
        expect(seen?.[key]).toBe(value);
        expect(Object.isFrozen(seen)).toBe(true);
      }),
      { numRuns: 10 },
    );
  });
});
