import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// On Node 24 a better-sqlite3 12.x object left to the garbage collector aborts the process
// (src/store/native-pin.ts). One unpinned handle in one test file failed a whole CI leg: every
// handle this package or its tests open goes through pinNativeObjects.

const root = fileURLToPath(new URL("..", import.meta.url));
const ownFile = fileURLToPath(import.meta.url);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return /\.(ts|mts)$/.test(entry.name) ? [path] : [];
  });
}

describe("better-sqlite3 handles", () => {
  it("are all opened through pinNativeObjects, in src and test", () => {
    const unpinned: string[] = [];
    for (const file of [...sources(join(root, "src")), ...sources(join(root, "test"))].filter((f) => f !== ownFile)) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/new Database\(/.test(line) && !/pinNativeObjects\(new Database\(/.test(line)) {
            unpinned.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
          }
        });
    }
    expect(unpinned).toEqual([]);
  });
});
