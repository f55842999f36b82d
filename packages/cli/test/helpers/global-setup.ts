import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * The CLI tests run the built binary as a user would. Under turbo the build
 * already ran; when the tests are run directly, rebuild a missing or stale dist.
 */
export default function setup(): void {
  const bin = join(root, "dist", "bin.js");
  if (existsSync(bin) && statSync(bin).mtimeMs >= newestSource(join(root, "src"))) return;
  process.stderr.write("[cli tests] building dist/ (missing or older than src/)…\n");
  execFileSync("npx", ["tsdown"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
}
