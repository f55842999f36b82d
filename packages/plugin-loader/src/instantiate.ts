import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { ContextEngine, isContextEngine } from "@context-engine/core";
import type { EngineInitContext, Logger } from "@context-engine/core";
import { describeError } from "./errors.js";
import { enableHostResolution } from "./host-resolution.js";
import { createRegistrationContext, EngineSlot, safeName } from "./registration.js";
import { DEFAULT_PLUGIN_TIMEOUT_MS, PluginTimeoutError, withTimeout } from "./timeout.js";

/** Where loading stopped, for messages and tests. */
export type LoadStage = "import" | "register" | "export" | "config" | "constructor" | "name";

export type InstantiateResult =
  | {
      ok: true;
      engine: ContextEngine;
      via: "register" | "class";
      exportName: string | null;
      /** Builds another instance of the same class (one per session); null for a registered instance. */
      construct: ((ctx: EngineInitContext) => unknown) | null;
    }
  | { ok: false; stage: LoadStage; reason: string };

export interface InstantiateRequest {
  /** Absolute module path. */
  entry: string;
  /** The name the engine must report (the plugin.yaml / package.json name). */
  expectedName: string;
  /** For messages: the plugin directory name or package name. */
  pluginName: string;
  /** The construction context for an engine of a given name (config section, data dir…). */
  engineContext: (name: string) => EngineInitContext;
  /**
   * Validate the engine's config section with the module's `configSchema`;
   * returns the reason it is invalid, or null.
   */
  validateConfig: (name: string, schema: SafeParser) => string | null;
  logger?: Logger;
  /** Limit for the import and for `register(ctx)`; default 30 s. */
  timeoutMs?: number;
}

/** Anything with zod's `safeParse` (a plugin may bring its own copy of zod). */
export interface SafeParser {
  safeParse(value: unknown): { success: boolean; error?: { issues?: unknown[] } };
}

/**
 * Import a plugin module and produce its engine. `register(ctx)` is tried
 * first; otherwise the default export, then named exports, are scanned for a
 * ContextEngine subclass, constructed as `new Engine(ctx)`. Never throws.
 */
export async function instantiatePlugin(request: InstantiateRequest): Promise<InstantiateResult> {
  const { expectedName } = request;
  const timeoutMs = request.timeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS;
  const mod = await importModule(request.entry, timeoutMs);
  if (!mod.ok) return mod;
  const exports = mod.exports;

  const schema = findConfigSchema(exports);
  if (schema) {
    const problem = request.validateConfig(expectedName, schema);
    if (problem) return { ok: false, stage: "config", reason: `invalid config: ${problem}` };
  }

  let registerFailure: string | null = null;
  const register = findRegister(exports);
  if (register) {
    const slot = new EngineSlot(request.logger);
    const ctx = createRegistrationContext(request.pluginName, slot, request.engineContext(expectedName), request.engineContext);
    try {
      await withTimeout(Promise.resolve().then(() => register(ctx)), timeoutMs, "register(ctx)");
    } catch (error) {
      registerFailure = error instanceof PluginTimeoutError ? error.message : `register(ctx) threw: ${describeError(error)}`;
      request.logger?.warn(`plugin "${request.pluginName}": ${registerFailure}`);
    }
    if (slot.engine) return checkEngine(slot.engine, expectedName, "register", null, null);
    registerFailure ??= slot.warnings[0] ?? "register(ctx) did not register an engine";
  }

  const classes = engineClasses(exports);
  if (classes.length === 0) {
    const reason = registerFailure
      ? `${registerFailure}, and the module exports no ContextEngine subclass`
      : "the module exports no ContextEngine subclass and no register(ctx) function";
    return { ok: false, stage: registerFailure ? "register" : "export", reason };
  }
  const [exportName, EngineClass] = classes[0]!;
  let engine: unknown;
  try {
    engine = new EngineClass(request.engineContext(expectedName));
  } catch (error) {
    return { ok: false, stage: "constructor", reason: `the ${exportName === "default" ? "default-exported" : exportName} constructor threw: ${describeError(error)}` };
  }
  return checkEngine(engine, expectedName, "class", exportName, (ctx) => new EngineClass(ctx));
}

type EngineClass = new (ctx: EngineInitContext) => unknown;

export async function importModule(entry: string, timeoutMs: number = DEFAULT_PLUGIN_TIMEOUT_MS): Promise<{ ok: true; exports: Record<string, unknown> } | { ok: false; stage: "import"; reason: string }> {
  try {
    enableHostResolution(dirname(entry));
    const exports = (await withTimeout(import(pathToFileURL(entry).href), timeoutMs, "the import")) as Record<string, unknown>;
    return { ok: true, exports };
  } catch (error) {
    return { ok: false, stage: "import", reason: `importing ${entry} failed: ${describeError(error)}` };
  }
}

function checkEngine(
  engine: unknown,
  expectedName: string,
  via: "register" | "class",
  exportName: string | null,
  construct: ((ctx: EngineInitContext) => unknown) | null,
): InstantiateResult {
  if (!isContextEngine(engine)) {
    return { ok: false, stage: "export", reason: "the constructed object is not a context engine (it needs name, updateFromResponse, shouldCompress and compress)" };
  }
  const name = safeName(engine);
  if (name !== expectedName) {
    return { ok: false, stage: "name", reason: `the engine reports name "${name}" but the plugin is named "${expectedName}"; they must match` };
  }
  return { ok: true, engine, via, exportName, construct };
}

export function findRegister(exports: Record<string, unknown>): ((ctx: unknown) => unknown) | null {
  if (typeof exports.register === "function") return exports.register as (ctx: unknown) => unknown;
  const def = exports.default as Record<string, unknown> | undefined;
  if (def && typeof def === "object" && typeof def.register === "function") return (ctx) => (def.register as (c: unknown) => unknown)(ctx);
  return null;
}

/** The module's `configSchema` export, else a `static configSchema` on its engine class. */
export function findConfigSchema(exports: Record<string, unknown>): SafeParser | null {
  const isParser = (v: unknown): v is SafeParser => !!v && typeof (v as SafeParser).safeParse === "function";
  if (isParser(exports.configSchema)) return exports.configSchema;
  for (const [, cls] of engineClasses(exports)) {
    const schema = (cls as unknown as { configSchema?: unknown }).configSchema;
    if (isParser(schema)) return schema;
  }
  return null;
}

/** ContextEngine subclasses among the exports: default first, then named ones in export order. */
export function engineClasses(exports: Record<string, unknown>): Array<[string, EngineClass]> {
  const out: Array<[string, EngineClass]> = [];
  const seen = new Set<unknown>();
  const keys = ["default", ...Object.keys(exports).filter((k) => k !== "default")];
  for (const key of keys) {
    const value = exports[key];
    if (seen.has(value) || !isEngineClass(value)) continue;
    seen.add(value);
    out.push([key, value]);
  }
  return out;
}

/**
 * A class whose instances are engines. Abstract members do not exist at run
 * time, so the base class itself (from any copy of core) fails the check.
 */
export function isEngineClass(value: unknown): value is EngineClass {
  if (typeof value !== "function" || value === ContextEngine) return false;
  const proto = (value as { prototype?: unknown }).prototype as Record<string, unknown> | undefined;
  if (!proto || typeof proto !== "object") return false;
  if (proto instanceof ContextEngine) return typeof proto.compress === "function";
  return (
    typeof proto.compress === "function" &&
    typeof proto.shouldCompress === "function" &&
    typeof proto.updateFromResponse === "function"
  );
}
