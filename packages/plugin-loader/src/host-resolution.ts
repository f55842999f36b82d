import Module, { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * Packages a plugin may import without installing them beside itself: when
 * its own resolution finds none, it gets the host's copy (so a directory
 * engine in plugins/context_engine/<name>/ needs no node_modules).
 */
const HOST_PACKAGES = ["@context-engine/core", "@context-engine/core/test"] as const;

const hostRequire = createRequire(import.meta.url);
const enabledRoots = new Set<string>();
let cjsPatched = false;

/** The host's URL for each host package (resolved from this module, i.e. from the host). */
function hostUrls(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const spec of HOST_PACKAGES) {
    try {
      out[spec] = import.meta.resolve(spec);
    } catch {
      // Not installed with this host: nothing to fall back to.
    }
  }
  return out;
}

// Runs on Node's loader thread: `data` is { root, urls }.
const HOOKS = `
let root = "";
let urls = {};
export async function initialize(data) { root = data.root; urls = data.urls; }
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const url = urls[specifier];
    if (url && (error?.code === "ERR_MODULE_NOT_FOUND" || error?.code === "MODULE_NOT_FOUND")) return { url, shortCircuit: true };
    throw error;
  }
}
const ESM_SYNTAX = /^\\s*(import\\s[^(]|import\\{|export\\s|export\\{)/m;
export async function load(url, context, next) {
  const result = await next(url, context);
  // A .js file with ESM syntax in a "type": "commonjs" plugin (npm init -y writes that): load it as ESM.
  if (result.format === "commonjs" && url.startsWith(root) && /\\.js$/.test(url)) {
    const source = result.source ?? (await import("node:fs")).readFileSync(new URL(url));
    const text = typeof source === "string" ? source : Buffer.from(source).toString("utf8");
    if (ESM_SYNTAX.test(text) && !/\\brequire\\s*\\(|module\\.exports|exports\\./.test(text)) return { format: "module", source: text, shortCircuit: true };
    // Real CommonJS: leave source unset so Node's own CommonJS loader (with require) runs it.
  }
  return result;
}
`;

/**
 * Let the plugin under `root` (a directory) resolve the host packages from
 * the host, whether it is ESM or CommonJS, and load ESM-syntax `.js` files
 * of a `"type": "commonjs"` package as ESM. Idempotent per directory.
 */
export function enableHostResolution(root: string): void {
  const rootUrl = pathToFileURL(root.endsWith("/") ? root : `${root}/`).href;
  if (enabledRoots.has(rootUrl)) return;
  enabledRoots.add(rootUrl);
  const urls = hostUrls();
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { root: rootUrl, urls } });
  patchCommonJs();
}

/** `require("@context-engine/core")` from a CommonJS plugin: fall back to the host's copy. */
function patchCommonJs(): void {
  if (cjsPatched) return;
  cjsPatched = true;
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    try {
      return original.call(this, request, ...rest);
    } catch (error) {
      if ((HOST_PACKAGES as readonly string[]).includes(request) && (error as { code?: string })?.code === "MODULE_NOT_FOUND") {
        return hostRequire.resolve(request);
      }
      throw error;
    }
  };
}
