import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const here = resolve(import.meta.dirname, "..");
const require = createRequire(join(here, "package.json"));
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/**
 * The published declarations as a consumer type-checks them: `strict`,
 * `skipLibCheck: false`, with only the package's declared dependencies
 * installed (core, zod, better-sqlite3's JavaScript, Node's types) — not `@types/better-sqlite3`, a dev
 * dependency. Reads the built `dist`, so it runs after the build.
 */
describe("published types", () => {
  it.skipIf(!existsSync(join(here, "dist", "index.d.ts")))("type-check without better-sqlite3's types (no TS7016)", () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-consumer-"));
    try {
      const modules = join(dir, "node_modules");
      mkdirSync(join(modules, "@context-engine", "lcm"), { recursive: true });
      mkdirSync(join(modules, "@types"), { recursive: true });
      cpSync(join(here, "package.json"), join(modules, "@context-engine", "lcm", "package.json"));
      cpSync(join(here, "dist"), join(modules, "@context-engine", "lcm", "dist"), { recursive: true });
      symlinkSync(packageDir("@context-engine/core"), join(modules, "@context-engine", "core"));
      symlinkSync(packageDir("zod"), join(modules, "zod"));
      // A real dependency, installed for every consumer: JavaScript without types of its own.
      symlinkSync(packageDir("better-sqlite3"), join(modules, "better-sqlite3"));
      symlinkSync(packageDir("@types/node"), join(modules, "@types", "node"));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }));
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { target: "ES2023", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] } }),
      );
      writeFileSync(
        join(dir, "consumer.ts"),
        [
          'import { LcmEngine, pinNativeObjects } from "@context-engine/lcm";',
          'import type { PinnableDatabase } from "@context-engine/lcm";',
          "const engine = new LcmEngine({ contextLength: 8_000 });",
          "declare const db: PinnableDatabase & { name: string };",
          "const same: string = pinNativeObjects(db).name;",
          "export { engine, same };",
        ].join("\n"),
      );
      const tsc = join(packageDir("typescript"), "bin", "tsc");
      let output = "";
      try {
        execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8", stdio: "pipe" });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A full type check of every declaration (skipLibCheck off) takes a while on a loaded machine.
  }, 240_000);
});
