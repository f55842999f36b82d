import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The outside-the-workspace tests run with CONTEXT_ENGINE_E2E=1, or CI=1 unless CONTEXT_ENGINE_E2E=0. */
const e2e = process.env.CONTEXT_ENGINE_E2E;
export const enabled = e2e === "1" || (e2e !== "0" && (process.env.CI === "1" || process.env.CI === "true"));

export const repo = join(dirname(fileURLToPath(import.meta.url)), "../../..");
export const PNPM = ["-y", "pnpm@12.4.2"];

export interface Published {
  name: string;
  dir: string;
  /** Import specifiers of the package's public entry points. */
  entries: string[];
  peers: string[];
}

/** Every non-private workspace package (packages/* and plugins/context_engine/*), found, not listed. */
export function publishedPackages(): Published[] {
  const out: Published[] = [];
  for (const parent of ["packages", "plugins/context_engine"]) {
    for (const name of readdirSync(join(repo, parent))) {
      const dir = join(repo, parent, name);
      if (!existsSync(join(dir, "package.json"))) continue;
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pkg.private) continue;
      const subpaths = Object.keys(pkg.exports ?? { ".": null }).filter((k) => k !== "./package.json" && !k.includes("*"));
      out.push({ name: pkg.name, dir, entries: subpaths.map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`)), peers: Object.keys(pkg.peerDependencies ?? {}) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The tarball of package `name` in `dir` (pnpm names it `<scope>-<name>-<version>.tgz`). */
export function tarballOf(dir: string, name: string): string {
  const file = readdirSync(dir).find((f) => f.startsWith(`${name.replace("@", "").replace("/", "-")}-`));
  if (!file) throw new Error(`no tarball of ${name} in ${dir}`);
  return join(dir, file);
}
