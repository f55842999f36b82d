/**
 * The keys a (zod-like) object schema allows at a path inside it, for "did
 * you mean" hints on unknown keys in nested engine settings. Walks `.shape`
 * through optional, default, nullable, pipe/preprocess and union wrappers;
 * undefined when the path leads nowhere recognisable (any other validator).
 */
export function schemaKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let node: unknown = schema;
  for (const key of path) {
    const object = objectSchema(node);
    if (!object || typeof key !== "string") return undefined;
    node = object.shape[key];
  }
  const object = objectSchema(node);
  return object ? Object.keys(object.shape) : undefined;
}

interface ObjectLike {
  shape: Record<string, unknown>;
}

// Wrappers are shallow in practice; the bound only guards against a cyclic definition.
const MAX_UNWRAP = 16;

function objectSchema(node: unknown, depth = 0): ObjectLike | null {
  if (!node || typeof node !== "object" || depth > MAX_UNWRAP) return null;
  const shape = (node as { shape?: unknown }).shape;
  if (shape && typeof shape === "object") return node as ObjectLike;
  const def = ((node as { _zod?: { def?: unknown } })._zod?.def ?? (node as { def?: unknown }).def) as Record<string, unknown> | undefined;
  if (!def || typeof def !== "object") return null;
  for (const inner of [def.innerType, def.out, def.in, def.schema]) {
    const found = objectSchema(inner, depth + 1);
    if (found) return found;
  }
  if (Array.isArray(def.options)) {
    for (const option of def.options) {
      const found = objectSchema(option, depth + 1);
      if (found) return found;
    }
  }
  return null;
}
