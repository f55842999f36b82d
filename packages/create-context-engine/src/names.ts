import { builtinModules } from "node:module";

/** An engine name: lowercase letters, digits, `-` and `_`, starting with a letter (it is also the npm package name). */
export const ENGINE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Names npm refuses for a new package although they fit `ENGINE_NAME`: Node's core modules (Node's own list,
 * `node:module`'s `builtinModules`, is the one npm checks against) and npm's blocklist.
 */
const NPM_RESERVED: ReadonlySet<string> = new Set(["node_modules", "favicon.ico", ...builtinModules.map((m) => m.replace(/^node:/, ""))]);

/** Why `name` cannot be an engine (and npm package) name, or null when it can. */
export function engineNameProblem(name: string): string | null {
  if (!ENGINE_NAME.test(name)) {
    return `engine name ${JSON.stringify(name)}: expected lowercase letters, digits, "-" or "_", starting with a letter, at most 64 characters (it becomes the npm package name and the context.engine value)`;
  }
  if (NPM_RESERVED.has(name)) {
    return `engine name ${JSON.stringify(name)}: npm refuses it as a package name (${name === "node_modules" || name === "favicon.ico" ? "a reserved name" : "a Node.js core module name"}); choose another`;
  }
  return null;
}

/**
 * Identifiers the generated files import or rely on: the engine's class name must be none of them
 * (`new-engine context` once generated `class ContextEngine extends ContextEngine`).
 */
export const TEMPLATE_IDENTIFIERS: ReadonlySet<string> = new Set([
  "ContextEngine",
  "CompressOptions",
  "EngineInitContext",
  "Message",
  "Usage",
  "describeContextEngineContract",
]);

/** `my-engine` → `MyEngine`, `lcm` → `LcmEngine`; never an identifier the templates import (`context` → `ContextEngineImpl`). */
export function className(name: string): string {
  const pascal = name
    .split(/[-_]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
  let cls = pascal.endsWith("Engine") ? pascal : `${pascal}Engine`;
  while (TEMPLATE_IDENTIFIERS.has(cls)) cls = `${cls}Impl`;
  return cls;
}
