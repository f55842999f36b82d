import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Logger } from "@context-engine/core";

/** The built core, imported by absolute URL from plugin modules written into temp dirs. */
export const CORE_URL = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "../../core/dist/index.js")).href;
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");

export interface Sandbox {
  root: string;
  home: string;
  bundled: string;
  user: string;
  cwd: string;
  write(rel: string, text: string): string;
  cleanup(): void;
}

/** A temp tree: `home/`, `bundled/`, `home/plugins/context_engine/` (user dir), `project/` (cwd). */
export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "ce-loader-"));
  const home = join(root, "home");
  const bundled = join(root, "bundled");
  const user = join(home, "plugins", "context_engine");
  const cwd = join(root, "project");
  for (const d of [home, bundled, user, cwd]) mkdirSync(d, { recursive: true });
  return {
    root,
    home,
    bundled,
    user,
    cwd,
    write(rel, text) {
      const path = join(root, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Source of a working engine class named `name`, recording what it was constructed with. */
export function engineSource(name: string, options: { className?: string; extra?: string; exportDefault?: boolean } = {}): string {
  const cls = options.className ?? "TestEngine";
  return `import { ContextEngine } from ${JSON.stringify(CORE_URL)};
export class ${cls} extends ContextEngine {
  constructor(ctx = {}) {
    super();
    this.initContext = ctx;
    this.contextLength = ctx.contextLength ?? 0;
  }
  get name() { return ${JSON.stringify(name)}; }
  updateFromResponse(usage) { this.recordUsage(usage); }
  shouldCompress(tokens) { return this.thresholdTokens > 0 && (tokens ?? this.lastPromptTokens) >= this.thresholdTokens; }
  compress(messages) { return messages; }
}
${options.extra ?? ""}
${options.exportDefault === false ? "" : `export default ${cls};`}
`;
}

export function manifest(name: string, extra = ""): string {
  return `name: ${name}\ndescription: The ${name} test engine\nversion: 1.2.3\n${extra}`;
}

/** Write `<dir>/<name>/plugin.yaml` + `index.js`. */
export function writePlugin(box: Sandbox, where: "bundled" | "user", name: string, module: string, yaml = manifest(name)): string {
  const base = where === "bundled" ? "bundled" : "home/plugins/context_engine";
  box.write(`${base}/${name}/plugin.yaml`, yaml);
  return box.write(`${base}/${name}/index.js`, module);
}

export interface CapturedLogger extends Logger {
  lines: Array<{ level: string; message: string }>;
  warnings(): string[];
}

export function captureLogger(): CapturedLogger {
  const lines: CapturedLogger["lines"] = [];
  const at = (level: string) => (message: string) => {
    lines.push({ level, message });
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), warnings: () => lines.filter((l) => l.level === "warn").map((l) => l.message) };
}

/** Options that confine discovery to the sandbox. */
export function isolated(box: Sandbox, logger?: Logger) {
  return { cwd: box.cwd, home: box.home, bundledDir: box.bundled, nodeModules: false as const, env: {}, logger: logger ?? captureLogger() };
}
