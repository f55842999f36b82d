#!/usr/bin/env node
// Run a package binary (vitest, tsx, …) under Node <major> or later, for tests of host libraries
// that need it: `node ../../scripts/with-node.mjs 24 vitest run`. A Node already at that major or
// later runs it itself (so the Node 22/24 legs of scripts/node-matrix.mjs test on their own Node,
// with their own better-sqlite3 build); an older one gets the binary from the npm package
// `node@<major>` (npx caches it). CONTEXT_ENGINE_NODE_<major> may point at a binary.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [major, bin, ...args] = process.argv.slice(2);
if (!/^\d+$/.test(major ?? "") || !bin) {
  console.error("usage: with-node.mjs <node-major> <package-bin> [args…]");
  process.exit(2);
}

function resolveBin(name) {
  const require = createRequire(join(process.cwd(), "package.json"));
  const pkgJson = require.resolve(`${name}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgJson, "utf8"));
  const entry = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.[name];
  if (!entry) throw new Error(`${name} has no bin named ${name}`);
  return join(dirname(pkgJson), entry);
}

const script = resolveBin(bin);
const override = process.env[`CONTEXT_ENGINE_NODE_${major}`];
const current = Number.parseInt(process.versions.node, 10);
const [cmd, pre] =
  override && existsSync(override) ? [override, []] : current >= Number(major) ? [process.execPath, []] : ["npx", ["-y", `node@${major}`]];
const result = spawnSync(cmd, [...pre, script, ...args], { stdio: "inherit", env: process.env });
if (result.error) {
  console.error(`with-node: could not start Node ${major}: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
