import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { fillSkeleton } from "./fill-skeleton.js";
import { ok, okStdout, run } from "./helpers.js";
import { enabled, publishedPackages, repo, tarballOf } from "./workspace.js";

// What an engine author does, outside this workspace, with npm: the README's
// "Write your own engine" section follows these steps one for one.
if (!enabled) console.warn("[e2e] SKIPPED: set CONTEXT_ENGINE_E2E=1 (or CI=1) to run the outside-the-workspace test");

const PACKAGES = ["packages/core", "packages/contract-tests", "packages/compressor", "packages/plugin-loader", "packages/host", "packages/sessions", "packages/cli", "packages/create-context-engine", "plugins/context_engine/lcm"];
// Packed and checked like the others; installed by the adapters' own tests, not here (their hosts are large).
const ADAPTERS = ["packages/ai-sdk", "packages/langchain"];
/** Files a package ships beyond the usual ones: the OpenClaw adapter's installable LCM plugin directory. */
const EXTRA_SHIPPED: Array<[string, RegExp]> = [["context-engine-openclaw-", /^lcm-plugin\/(dist\/[\w.-]+\.js|openclaw\.plugin\.json|package\.json)$/]];
// --prefer-offline: packages already in npm's cache are not revalidated against the registry (most of the install time here).
const NPM_QUIET = ["--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--prefer-offline"];

const root = mkdtempSync(join(tmpdir(), "ce-e2e-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
// Our packages, packed once by test/global-setup.ts (read-only here); the scaffolded engine's own tarball beside it.
const ownTarballs = join(root, "tarballs");
const tarball = (name: string) => (name === "my-engine" ? tarballOf(ownTarballs, name) : tarballOf(inject("tarballs"), name));

describe.skipIf(!enabled)("outside the workspace, with npm", () => {
  it("packs every package with only dist, README, LICENSE, CHANGELOG and the manifests", async () => {
    const tarballs = inject("tarballs");
    // One tarball per published package, ours and the adapters among them.
    expect(readdirSync(tarballs)).toHaveLength(publishedPackages().length);
    for (const p of [...PACKAGES, ...ADAPTERS]) tarball(JSON.parse(readFileSync(join(repo, p, "package.json"), "utf8")).name);
    for (const file of readdirSync(tarballs)) {
      // `npm pack` would keep them (EUNSUPPORTEDPROTOCOL on install); what the release publishes has none.
      expect(await ok("tar", ["-xzOf", join(tarballs, file), "package/package.json"], root), `${file} has no workspace: ranges`).not.toContain("workspace:");
      const listing = await ok("tar", ["-tzf", join(tarballs, file)], root);
      const entries = listing.trim().split("\n").map((l) => l.replace(/^package\//, ""));
      expect(entries, file).toContain("LICENSE");
      const extra = EXTRA_SHIPPED.find(([prefix]) => file.startsWith(prefix))?.[1];
      const needed = (e: string) => /^(dist\/|data\/|README\.md$|LICENSE$|CHANGELOG\.md$|package\.json$|plugin\.yaml$)/.test(e) || (extra?.test(e) ?? false);
      expect(entries.filter((e) => !needed(e)), `${file} ships only what consumers need`).toEqual([]);
    }
  });

  it("scaffolds my-engine, installs the tarballs, fills the skeleton, passes the kit and builds", async () => {
    // What `npm create context-engine@latest my-engine` runs, with the packed tarball instead of the registry's.
    await ok("npm", ["exec", "--yes", `--package=${tarball("create-context-engine")}`, "--", "create-context-engine", "my-engine"], root);
    const engine = join(root, "my-engine");
    await ok("npm", ["install", ...NPM_QUIET, "--save-dev", tarball("@context-engine/core"), tarball("@context-engine/contract-tests")], engine);
    const filled = fillSkeleton(readFileSync(join(engine, "src/index.ts"), "utf8"), readFileSync(join(engine, "test/contract.test.ts"), "utf8"));
    writeFileSync(join(engine, "src/index.ts"), filled.source);
    writeFileSync(join(engine, "test/contract.test.ts"), filled.test);
    const test = await run("npm", ["test"], engine);
    expect(test.code, test.out.slice(-3000)).toBe(0);
    expect(test.out).not.toContain("[TODO]");
    await ok("npm", ["run", "build"], engine);
    mkdirSync(ownTarballs, { recursive: true });
    await ok("npm", ["pack", "--ignore-scripts", "--pack-destination", ownTarballs], engine); // built just above
  });

  it("the CLI discovers and selects the engine as an npm package and as a directory engine", async () => {
    const host = join(root, "host");
    mkdirSync(host);
    writeFileSync(join(host, "package.json"), JSON.stringify({ name: "host", private: true, type: "module" }));
    const ours = PACKAGES.map((p) => tarball(JSON.parse(readFileSync(join(repo, p, "package.json"), "utf8")).name));
    await ok("npm", ["install", ...NPM_QUIET, ...ours, tarball("my-engine")], host);
    writeFileSync(join(host, "config.yaml"), "context:\n  engine: my-engine\n");
    const home = join(root, "home");
    const env = { CONTEXT_ENGINE_HOME: home, HOME: root };
    const listed = (out: string) => (JSON.parse(out) as { engines: Array<{ name: string; source: string; status: string; active: boolean }> }).engines.filter((e) => e.name === "my-engine");

    const asNpm = listed(await okStdout("npx", ["context-engine", "plugins", "list", "--json"], host, env));
    expect(asNpm).toEqual([expect.objectContaining({ source: "npm", status: "ok", active: true })]);

    // The same engine as a directory engine: its built files and plugin.yaml, no node_modules.
    await ok("npm", ["uninstall", ...NPM_QUIET, "my-engine"], host);
    const dir = join(home, "plugins", "context_engine", "my-engine");
    mkdirSync(dir, { recursive: true });
    for (const f of ["dist", "plugin.yaml", "package.json"]) cpSync(join(root, "my-engine", f), join(dir, f), { recursive: true });
    const asDir = listed(await okStdout("npx", ["context-engine", "plugins", "list", "--json"], host, env));
    expect(asDir).toEqual([expect.objectContaining({ source: "user", status: "ok", active: true })]);
  });
});
