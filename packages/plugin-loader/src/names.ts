import { isAbsolute, relative, resolve, sep } from "node:path";

/** Engine and plugin names: lowercase identifiers, so a name can never be a path. */
export const ENGINE_NAME_PATTERN = /^[a-z][a-z0-9_-]*$/;

/** The built-in engine's name; selecting it never consults plugins. */
export const BUILTIN_ENGINE_NAME = "compressor";

export function isValidEngineName(name: unknown): name is string {
  return typeof name === "string" && name.length <= 64 && ENGINE_NAME_PATTERN.test(name);
}

/** Why a name is refused, or null when it is a valid identifier. */
export function engineNameProblem(name: unknown): string | null {
  if (typeof name !== "string") return `expected an engine name string, got ${typeof name}`;
  if (name.length === 0) return "the engine name is empty";
  if (name.length > 64) return "the engine name is longer than 64 characters";
  if (!ENGINE_NAME_PATTERN.test(name)) {
    const pathLike = /[\\/]|\.\.|^~/.test(name) ? " (names that look like paths are refused)" : "";
    return `"${name}" is not an engine name: expected lowercase letters, digits, "_" or "-", starting with a letter${pathLike}`;
  }
  return null;
}

/** Whether `child` is `parent` itself or lies inside it (both already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
