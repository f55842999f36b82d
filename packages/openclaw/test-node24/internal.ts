// OpenClaw's engine registry and logical-turn selection are not public
// subpaths; they live in content-hashed chunks of the pinned openclaw build.
// Find a chunk by the function it exports, by name, so this needs no hash.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
// "openclaw" resolves to dist/index.js (package.json is not an export).
const dist = dirname(require.resolve("openclaw"));

export async function openclawInternal<T = (...args: never[]) => unknown>(prefix: string, name: string): Promise<T> {
  for (const file of readdirSync(dist)) {
    if (!file.startsWith(`${prefix}-`) || !file.endsWith(".mjs")) continue;
    const source = readFileSync(join(dist, file), "utf8");
    const match = new RegExp(`export \\{[^}]*\\b${name} as (\\w+)`).exec(source);
    if (match) return (await import(pathToFileURL(join(dist, file)).href))[match[1]!] as T;
  }
  throw new Error(`openclaw internal ${name} not found in dist/${prefix}-*.mjs`);
}
