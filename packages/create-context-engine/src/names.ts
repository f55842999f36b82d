/** An engine name: lowercase letters, digits, `-` and `_`, starting with a letter (it is also the npm package name). */
export const ENGINE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** `my-engine` → `MyEngineEngine` is clumsy; `my-engine` → `MyEngine`, `lcm` → `LcmEngine`. */
export function className(name: string): string {
  const pascal = name
    .split(/[-_]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
  return pascal.endsWith("Engine") ? pascal : `${pascal}Engine`;
}
