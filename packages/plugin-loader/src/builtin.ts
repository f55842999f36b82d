import { createRequire } from "node:module";
import type { ContextEngine, EngineInitContext } from "@context-engine/core";

/**
 * The built-in compressor. Imported lazily so that selecting a plugin engine
 * never loads the compressor's code.
 */
export async function createBuiltinEngine(ctx: EngineInitContext): Promise<ContextEngine> {
  const specifier = "@context-engine/compressor";
  const { ContextCompressor } = (await import(specifier)) as { ContextCompressor: new (ctx: EngineInitContext) => ContextEngine };
  return new ContextCompressor(ctx);
}

/** The installed compressor's version, for `plugins list`. */
export function builtinVersion(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require("@context-engine/compressor/package.json") as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : null;
  } catch {
    return null;
  }
}

export const BUILTIN_DESCRIPTION = "Built-in compressor: summarises the middle of the conversation, keeps head and tail verbatim";
