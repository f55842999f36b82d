import { createRequire } from "node:module";
import type { ContextEngine, EngineInitContext } from "@context-engine/core";
import { ContextCompressor } from "@context-engine/compressor";

/** The built-in compressor, configured by the `compression` block (its `EngineInitContext.config`). */
export async function createBuiltinEngine(ctx: EngineInitContext): Promise<ContextEngine> {
  return new ContextCompressor(ctx);
}

/** The same, synchronously: the factory behind one compressor per session. */
export function constructBuiltinEngine(ctx: EngineInitContext): ContextEngine {
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
