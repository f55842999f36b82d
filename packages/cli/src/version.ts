import { readFileSync } from "node:fs";

let cached: string | undefined;

/** The CLI's version from its package.json (one level above both src/ and dist/). */
export function cliVersion(): string {
  if (cached) return cached;
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: unknown };
    cached = typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    cached = "0.0.0";
  }
  return cached;
}
