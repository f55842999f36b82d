import type { ConfigProblem } from "./problems.js";
import type { ContextEngineConfig } from "./schema.js";
import type { YamlSource } from "./yaml-source.js";

/**
 * The model's window has one name, `model.context_length`. `model.context_window` (the name
 * several providers use) is accepted and read as it, with a note saying so; both with different
 * values is an error. Returns the problems and writes `context_length` into the config.
 */
export function normalizeModelWindow(config: ContextEngineConfig, source: Pick<YamlSource, "file" | "positionOf"> | null): ConfigProblem[] {
  const model = config.model;
  if (!model || model.context_window === undefined) return [];
  const pos = source?.positionOf(["model", "context_window"], true) ?? null;
  const at = { file: source?.file ?? null, line: pos?.line ?? null, column: pos?.column ?? null, key: "model.context_window" };
  if (model.context_length !== undefined && model.context_length !== model.context_window) {
    return [
      {
        ...at,
        message: `disagrees with model.context_length (${model.context_window} vs ${model.context_length}); the window has one name, model.context_length: keep that one`,
        severity: "error",
      },
    ];
  }
  model.context_length = model.context_window;
  return [{ ...at, message: "model.context_window is read as model.context_length, the window's one name; rename the key to silence this note", severity: "warning" }];
}
