/** An engine name: lowercase letters, digits, `-` and `_`, starting with a letter (it is also the npm package name). */
export const ENGINE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

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
