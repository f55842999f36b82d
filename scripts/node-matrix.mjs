#!/usr/bin/env node
// Run the whole test suite again under other Node majors (default 22 and 24) after the main run.
// Node binaries come from the npm `node` package (npx caches them). better-sqlite3 is native: its
// binary is per ABI, and no prebuilt binary can be downloaded here (no GitHub access), so it is
// compiled once per ABI with node-gyp against headers from the npm `node-<platform>-<arch>`
// package, cached under ~/.cache/context-engine, and swapped into place for that major's run.
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
// `node scripts/node-matrix.mjs 22 24 -- --filter=…`: majors first, then arguments for scripts/run-tests.mjs (turbo).
// `node scripts/node-matrix.mjs --prepare 22 24`: only compile (and cache) the binaries, no tests; CI
// starts this in the background, niced, while the Node 20 run goes on.
const prepareOnly = process.argv[2] === "--prepare";
const argv = process.argv.slice(prepareOnly ? 3 : 2);
const split = argv.indexOf("--");
const majorArgs = split >= 0 ? argv.slice(0, split) : argv;
const testArgs = split >= 0 ? argv.slice(split + 1) : [];
const majors = majorArgs.length ? majorArgs : ["22", "24"];
const PNPM = ["-y", "pnpm@12.4.2"];

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", stdio: opts.inherit ? "inherit" : "pipe", ...opts });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}\n${r.stderr ?? ""}`);
  return r;
}

/** The better-sqlite3 package directory the workspace uses (through the lcm package). */
function betterSqliteDir() {
  const lcm = createRequire(join(repo, "plugins/context_engine/lcm/package.json"));
  return dirname(lcm.resolve("better-sqlite3/package.json"));
}

function nodeInfo(major) {
  const r = sh("npx", ["-y", `node@${major}`, "-p", "JSON.stringify({ exec: process.execPath, version: process.version.slice(1), abi: process.versions.modules })"]);
  return JSON.parse(r.stdout.trim().split("\n").pop());
}

/** A better_sqlite3.node for this Node, compiled once and cached. */
function binaryFor(node, bsDir) {
  const { version: bsVersion } = JSON.parse(sh(process.execPath, ["-p", `JSON.stringify(require(${JSON.stringify(join(bsDir, "package.json"))}))`]).stdout);
  const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "context-engine", `better-sqlite3-${bsVersion}`, `abi-${node.abi}`);
  const cached = join(cacheDir, "better_sqlite3.node");
  if (existsSync(cached)) return cached;
  console.log(`[node-matrix] compiling better-sqlite3 ${bsVersion} for Node ${node.version} (ABI ${node.abi}); cached for later runs`);
  const work = mkdtempSync(join(tmpdir(), "ce-bs3-"));
  try {
    sh("npm", ["pack", `node-${process.platform}-${process.arch}@${node.version}`, "--silent"], { cwd: work });
    const tgz = readdirSync(work).find((f) => f.endsWith(".tgz"));
    sh("tar", ["-xzf", tgz], { cwd: work });
    const src = join(work, "src");
    cpSync(bsDir, src, { recursive: true, dereference: true, filter: (p) => !p.includes(`${bsDir}/build`) });
    const gyp = join(dirname(createRequire(sh("npm", ["root", "-g"]).stdout.trim() + "/").resolve("npm/package.json")), "node_modules/node-gyp/bin/node-gyp.js");
    sh(node.exec, [gyp, "rebuild", "--release", `--nodedir=${join(work, "package")}`, "-j", "2"], { cwd: src, inherit: true });
    mkdirSync(cacheDir, { recursive: true });
    // Copied beside, then renamed: a run reading the cache never sees half a binary.
    const partial = `${cached}.${process.pid}.partial`;
    copyFileSync(join(src, "build/Release/better_sqlite3.node"), partial);
    renameSync(partial, cached);
    return cached;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Replace a file without writing through it: pnpm hard-links package files across projects. */
function place(src, dst) {
  rmSync(dst, { force: true });
  copyFileSync(src, dst);
}

const bsDir = betterSqliteDir();
if (prepareOnly) {
  for (const major of majors) {
    const started = Date.now();
    binaryFor(nodeInfo(major), bsDir);
    console.log(`[node-matrix] better-sqlite3 for Node ${major} ready in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  process.exit(0);
}
const live = join(bsDir, "build/Release/better_sqlite3.node");
const backup = `${live}.node20`;
const timings = [];
let failed = false;
place(live, backup);
try {
  for (const major of majors) {
    const started = Date.now();
    const node = nodeInfo(major);
    place(binaryFor(node, bsDir), live);
    console.log(`\n[node-matrix] === the test suite on Node ${node.version} ===`);
    // CONTEXT_ENGINE_* is part of turbo's test hash, so each major really runs (builds stay cached);
    // the outside-the-workspace test runs once, in the main run.
    const env = { ...process.env, PATH: `${dirname(node.exec)}:${process.env.PATH}`, CONTEXT_ENGINE_NODE_MAJOR: major, CONTEXT_ENGINE_E2E: "0" };
    // better-sqlite3 12.x objects abort Node 24 when collected outside JavaScript
    // (RemoveEnvironmentCleanupHook assertion); LCM keeps them alive there (src/store/native-pin.ts).
    const r = sh("npx", [...PNPM, "exec", "node", "scripts/run-tests.mjs", ...testArgs], { cwd: repo, env, inherit: true, allowFail: true });
    if (r.status !== 0) failed = true;
    timings.push(`Node ${node.version}: ${r.status === 0 ? "passed" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s`);
  }
} finally {
  place(backup, live);
  rmSync(backup, { force: true });
}
console.log(`\n[node-matrix] ${timings.join("; ")}`);
process.exit(failed ? 1 : 0);
