import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { engineNameProblem } from "./names.js";
import { engineFiles } from "./templates.js";

export interface ScaffoldOptions {
  /** Where to create the package; its last segment is the engine name unless `name` is given. */
  directory: string;
  name?: string;
  description?: string;
  /** Version ranges for `@context-engine/core` and the kit (defaults: any 0.x). */
  coreRange?: string;
  kitRange?: string;
  /**
   * A local `@context-engine/core` (a package folder or a tarball from `pnpm pack`) instead of the
   * registry: the author path before the packages are published. `kitFrom` likewise for the kit.
   */
  coreFrom?: string;
  kitFrom?: string;
}

export interface ScaffoldResult {
  directory: string;
  name: string;
  files: string[];
}

/** Write a new engine package. Refuses a non-empty directory and a name that is not a valid engine name. */
export function scaffoldEngine(options: ScaffoldOptions): ScaffoldResult {
  const directory = resolve(options.directory);
  const name = options.name ?? basename(directory);
  const problem = engineNameProblem(name);
  if (problem) throw new Error(problem);
  if (existsSync(directory) && readdirSync(directory).length > 0) {
    throw new Error(`${directory} already exists and is not empty; choose a new directory`);
  }
  const coreSource = options.coreFrom ? localSource("core-from", options.coreFrom, "@context-engine/core") : undefined;
  const kitSource = options.kitFrom ? localSource("kit-from", options.kitFrom, "@context-engine/contract-tests") : undefined;
  const files = engineFiles({
    ...(coreSource ? { coreSource } : {}),
    ...(kitSource ? { kitSource } : {}),
    name,
    description: options.description ?? `The ${name} context engine`,
    ...(options.coreRange ? { coreRange: options.coreRange } : {}),
    ...(options.kitRange ? { kitRange: options.kitRange } : {}),
  });
  for (const [rel, text] of Object.entries(files)) {
    const path = join(directory, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return { directory, name, files: Object.keys(files) };
}

/** A `file:` spec for a local package folder or tarball, checked to exist and to be that package when it can be read. */
export function localSource(flag: string, path: string, packageName: string): string {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new Error(`--${flag}: ${abs} does not exist (a ${packageName} folder, or a .tgz from pnpm pack)`);
  if (statSync(abs).isDirectory()) {
    const manifest = join(abs, "package.json");
    if (!existsSync(manifest)) throw new Error(`--${flag}: ${abs} has no package.json; give the ${packageName} package folder or its .tgz`);
    const found = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
    if (found !== packageName) throw new Error(`--${flag}: ${abs} holds ${JSON.stringify(found)}, not ${packageName}`);
  } else if (!/\.(tgz|tar\.gz)$/.test(abs)) {
    throw new Error(`--${flag}: ${abs} is neither a package folder nor a .tgz tarball`);
  }
  return `file:${abs}`;
}

/** What to tell the user after scaffolding. */
export function nextSteps(result: ScaffoldResult, cwd: string): string {
  const rel = result.directory.startsWith(`${cwd}/`) ? result.directory.slice(cwd.length + 1) : result.directory;
  return [
    `Created the ${result.name} engine in ${rel}:`,
    ...result.files.map((f) => `  ${f}`),
    "",
    "Next:",
    `  cd ${shellQuote(rel)}`,
    "  npm install",
    "  npm test        # the contract kit; compress is marked TODO",
    "  npm run build",
    "",
  ].join("\n");
}

/**
 * `path` as one POSIX shell word that runs nothing when pasted: as it is when it holds only safe characters,
 * else in single quotes (a quote inside closed, escaped and reopened); a leading `-` gets `./` so `cd` does
 * not read it as an option.
 */
export function shellQuote(path: string): string {
  const word = path.startsWith("-") ? `./${path}` : path;
  if (word !== "" && /^[A-Za-z0-9_./@%+=:,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
