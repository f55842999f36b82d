// Drive a real OpenClaw the way its users do: OpenClaw from npm, our packages from packed tarballs,
// the LCM plugin installed with OpenClaw's own CLI exactly as the package README says, a loopback
// OpenAI-compatible model, turns through `openclaw agent --local` and a gateway. Run under Node 24.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const packageDir = join(here, "..");
const repo = join(packageDir, "..", "..");
const PNPM = ["-y", "pnpm@12.4.2"];

/** OpenClaw's version this package is tested with (its devDependency). */
export const OPENCLAW_VERSION = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).devDependencies.openclaw;

function npmCli() {
  const root = spawnSync("npm", ["root", "-g"], { encoding: "utf8" }).stdout.trim();
  return join(root, "npm", "bin", "npm-cli.js");
}

/** Run to completion with a deadline; output kept. `node` runs under this process's Node (24). */
/** This process's environment without a test runner's marks (OpenClaw quiets its CLI output under them). */
function cleanEnv() {
  const out = { ...process.env };
  for (const key of Object.keys(out)) if (key.startsWith("VITEST") || key === "NODE_ENV" || key === "TEST" || key.startsWith("JEST")) delete out[key];
  return out;
}

export function run(cmd, args, { cwd, env = {}, timeoutMs = 600_000, input } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd, env: { ...cleanEnv(), FORCE_COLOR: "0", NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

async function ok(cmd, args, opts) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.code ?? r.signal}:\n${(r.stderr + r.stdout).slice(-3000)}`);
  return r;
}

const npm = (args, opts) => ok(process.execPath, [npmCli(), ...args], { ...opts, env: { npm_config_nodedir: "", ...(opts?.env ?? {}) } });

/**
 * OpenClaw from npm (`npm install openclaw@<version>`, as its users install it), once per version and
 * Node major under ~/.cache/context-engine (like the Node matrix's better-sqlite3 builds): it is a large
 * install, and CI runs the same pinned version every time. Built beside, then renamed into place.
 */
async function cachedOpenClaw() {
  const major = process.versions.node.split(".")[0];
  const root = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "context-engine", `openclaw-${OPENCLAW_VERSION}-node${major}`);
  const cli = join(root, "node_modules", "openclaw", "openclaw.mjs");
  if (existsSync(cli)) return cli;
  const partial = `${root}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(join(partial, "package.json"), JSON.stringify({ name: "openclaw-e2e-cache", private: true }));
  await npm(["install", "--no-audit", "--no-fund", "--loglevel=error", `openclaw@${OPENCLAW_VERSION}`], { cwd: partial, timeoutMs: 900_000 });
  try {
    renameSync(partial, root);
  } catch {
    // Another run cached it first: use that one.
    rmSync(partial, { recursive: true, force: true });
  }
  return cli;
}

/**
 * Pack core and the adapter (pnpm pack rewrites workspace ranges as a publish does), install them
 * into `work/env` with npm as the README says, then pack the LCM plugin directory the adapter ships:
 * the plugin tarball the README tells users to install. OpenClaw itself comes from npm, installed
 * into `work/env` too or, with `{ cache: true }`, once per version (see `cachedOpenClaw`).
 */
export async function prepareInstall(work, { cache = false } = {}) {
  const tarballs = join(work, "tarballs");
  const env = join(work, "env");
  mkdirSync(tarballs, { recursive: true });
  mkdirSync(env, { recursive: true });
  const openclawCli = cache ? cachedOpenClaw() : null;
  openclawCli?.catch(() => {});
  for (const pkg of ["packages/core", "packages/openclaw"]) await ok("npx", [...PNPM, "pack", "--pack-destination", tarballs], { cwd: join(repo, pkg) });
  const tgz = (prefix) => join(tarballs, readdirSync(tarballs).find((f) => f.startsWith(prefix) && f.endsWith(".tgz")));
  writeFileSync(join(env, "package.json"), JSON.stringify({ name: "openclaw-e2e", private: true }));
  const specs = [...(cache ? [] : [`openclaw@${OPENCLAW_VERSION}`]), tgz("context-engine-core-"), tgz("context-engine-openclaw-")];
  await npm(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline", ...specs], { cwd: env, timeoutMs: 900_000 });
  // README: npm pack the plugin directory the adapter ships, then install that tarball with OpenClaw's CLI.
  await npm(["pack", "--pack-destination", tarballs, join(env, "node_modules/@context-engine/openclaw/lcm-plugin")], { cwd: env });
  const openclaw = openclawCli ? await openclawCli : join(env, "node_modules/openclaw/openclaw.mjs");
  return { env, pluginTarball: tgz("context-engine-openclaw-lcm-"), openclaw };
}

/** `npm pack` a plugin directory into `dest`; the tarball's path. */
export async function npmPack(dir, dest) {
  const before = new Set(existsSync(dest) ? readdirSync(dest) : []);
  mkdirSync(dest, { recursive: true });
  await npm(["pack", "--pack-destination", dest, dir], { cwd: dest });
  const made = readdirSync(dest).find((f) => f.endsWith(".tgz") && !before.has(f));
  if (!made) throw new Error(`npm pack ${dir} made no tarball in ${dest}`);
  return join(dest, made);
}

/** The loopback model server: its port and the requests it recorded. */
export async function startModel(work) {
  const portFile = join(work, `model-port-${Date.now()}`);
  const requests = join(work, "requests.jsonl");
  const child = spawn(process.execPath, [join(here, "loopback-model.mjs"), portFile, requests], { stdio: "ignore", env: cleanEnv() });
  for (let i = 0; i < 100 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 100));
  const port = Number(readFileSync(portFile, "utf8"));
  return {
    port,
    requests: () => (existsSync(requests) ? readFileSync(requests, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []),
    stop: () => child.kill(),
  };
}

/** An OpenClaw home (`OPENCLAW_HOME`) with the plugin installed by OpenClaw's CLI and a loopback model. */
export async function makeHome(install, dir, { port, window = 24_000, pluginConfig = {}, pluginTarball = install.pluginTarball, pluginId = "context-engine-lcm" }) {
  mkdirSync(dir, { recursive: true });
  const env = { OPENCLAW_HOME: dir };
  const cli = (args, opts = {}) => run(process.execPath, [install.openclaw, ...args], { cwd: install.env, ...opts, env: { ...env, ...(opts.env ?? {}) } });
  const installed = await cli(["plugins", "install", pluginTarball, "--force", "--accept-capabilities"], { timeoutMs: 600_000 });
  if (installed.code !== 0) throw new Error(`openclaw plugins install failed:\n${(installed.stderr + installed.stdout).slice(-3000)}`);
  const configPath = join(dir, ".openclaw", "openclaw.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  config.models = { providers: { loop: { api: "openai-completions", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "loopback", models: [{ id: "loop", name: "loop", contextWindow: window, maxTokens: 1024 }] } } };
  config.agents = { ...(config.agents ?? {}), defaults: { ...(config.agents?.defaults ?? {}), model: { primary: "loop/loop" } } };
  config.plugins.entries[pluginId] = { ...(config.plugins.entries[pluginId] ?? {}), enabled: true, config: pluginConfig };
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return {
    dir,
    config,
    installOutput: installed.stdout + installed.stderr,
    pluginDir: join(dir, ".openclaw", "extensions", pluginId),
    cli,
    /** One turn in a fresh process (`--local`): every turn is also a restart. */
    async turn(sessionId, message, timeoutMs = 600_000) {
      const r = await cli(["agent", "--local", "--agent", "main", "--session-id", sessionId, "--message", message, "--json"], { timeoutMs });
      let json = null;
      try {
        json = JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
      } catch {}
      return { ...r, json, text: json?.meta?.finalAssistantVisibleText ?? json?.result?.finalAssistantVisibleText ?? r.stdout };
    },
  };
}

/** `pg` as installed beside the plugin (its optional dependency), for reading the shared schema. */
export function pgFrom(home) {
  const plugin = join(home.dir, ".openclaw", "extensions", "context-engine-lcm", "package.json");
  return createRequire(plugin)("pg");
}

/** Every stored row of a session, in order: role and content. */
export async function storedRows(pg, url, schema, sessionId) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT m.seq, m.role, m.message, m.body FROM "${schema}".messages m JOIN "${schema}".conversations c ON c.id = m.conversation_id WHERE c.session_id = $1 ORDER BY m.seq`,
      [sessionId],
    );
    // LCM keeps a message's plain text in `body` and only the rest of it in `message`.
    return rows.map((r) => {
      const message = typeof r.message === "string" ? JSON.parse(r.message) : r.message;
      return { seq: r.seq, role: r.role, message: message.content === undefined && r.body != null ? { ...message, content: r.body } : message };
    });
  } finally {
    await client.end();
  }
}

export async function storedSessions(pg, url, schema) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT session_id FROM "${schema}".conversations ORDER BY id`);
    return rows.map((r) => r.session_id);
  } catch {
    return [];
  } finally {
    await client.end();
  }
}

export async function dropSchema(pg, url, schema) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A long-running OpenClaw gateway on `home` (`openclaw gateway run`, loopback, token auth). In gateway
 * mode OpenClaw calls the engine's `dispose` after every turn. `ready` resolves true once it logs ready
 * (false after `timeoutMs` or when it exits); `turn` runs `openclaw agent` through it.
 */
export function startGateway(install, home, { port, token, timeoutMs = 300_000 }) {
  const gwEnv = { OPENCLAW_GATEWAY_TOKEN: token, OPENCLAW_GATEWAY_PORT: String(port) };
  const args = [install.openclaw, "gateway", "run", "--port", String(port), "--bind", "loopback", "--auth", "token", "--token", token, "--allow-unconfigured"];
  const child = spawn(process.execPath, args, { cwd: install.env, env: { ...cleanEnv(), OPENCLAW_HOME: home.dir, ...gwEnv, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const ready = new Promise((resolve) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const up = /\[gateway\]\s+ready/.test(out);
      if (up || Date.now() - started > timeoutMs || child.exitCode !== null) {
        clearInterval(poll);
        resolve(up);
      }
    }, 500);
  });
  return {
    child,
    ready,
    output: () => out,
    stop: (signal = "SIGTERM") => child.kill(signal),
    turn: (sessionId, message, turnTimeoutMs = 600_000) =>
      home.cli(["agent", "--agent", "main", "--session-id", sessionId, "--message", message, "--json"], { env: gwEnv, timeoutMs: turnTimeoutMs }),
  };
}
