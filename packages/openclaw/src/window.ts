/**
 * The model's context window, kept apart from OpenClaw's per-call budgets.
 * OpenClaw passes `assemble` the room left for messages (window − prompt −
 * reserve, ≈ 8.8k of a 24k window), then nearly the whole window falling per
 * tool step, and `commitTurn`/`compact` the window itself. Only the window
 * may reach `updateModel`: an engine that took a per-call budget for the
 * window would compact at a fraction of it.
 */

export interface ModelRef {
  /** OpenClaw's provider name (`models.providers.<name>`), when known. */
  provider?: string | undefined;
  /** The model id, or `provider/id`. */
  model?: string | undefined;
}

/** Reads a model's window from OpenClaw's config; undefined when the config does not say. */
export type ContextWindowResolver = (ref: ModelRef) => number | undefined;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const positive = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);

/** `agents.defaults.model.primary` (a string, or `{ primary }`), as `provider/id`. */
function primaryModel(config: Obj): string | undefined {
  const agents = isObj(config.agents) ? config.agents : undefined;
  const defaults = agents && isObj(agents.defaults) ? agents.defaults : undefined;
  const model = defaults?.model;
  if (typeof model === "string") return model;
  return isObj(model) && typeof model.primary === "string" ? model.primary : undefined;
}

function windowIn(provider: unknown, id: string): number | undefined {
  if (!isObj(provider) || !Array.isArray(provider.models)) return undefined;
  for (const entry of provider.models) {
    if (isObj(entry) && entry.id === id) return positive(entry.contextWindow) ?? positive(entry.contextTokens);
  }
  return undefined;
}

/**
 * A resolver over OpenClaw's config object (`models.providers.<name>.models[]`
 * with `id` and `contextWindow`). A model given as `provider/id` or with a
 * provider is looked up there; a bare id in every provider; no model at all
 * means the configured primary model.
 */
export function windowFromOpenClawConfig(config: unknown): ContextWindowResolver {
  return (ref) => {
    if (!isObj(config) || !isObj(config.models) || !isObj(config.models.providers)) return undefined;
    const providers = config.models.providers;
    const named = ref.model ?? primaryModel(config);
    if (!named) return undefined;
    const slash = named.indexOf("/");
    const [provider, id] = ref.provider ? [ref.provider, named.startsWith(`${ref.provider}/`) ? named.slice(ref.provider.length + 1) : named] : slash > 0 ? [named.slice(0, slash), named.slice(slash + 1)] : [undefined, named];
    if (provider && provider in providers) {
      const found = windowIn(providers[provider], id) ?? windowIn(providers[provider], named);
      if (found) return found;
    }
    for (const p of Object.values(providers)) {
      const found = windowIn(p, id) ?? windowIn(p, named);
      if (found) return found;
    }
    return undefined;
  };
}

/** The provider and model OpenClaw names in `runtimeSettings.model` (resolved first), else `params.model`. */
export function modelRefOf(params: { model?: unknown; runtimeSettings?: unknown }): ModelRef {
  const settings = isObj(params.runtimeSettings) && isObj(params.runtimeSettings.model) ? params.runtimeSettings.model : undefined;
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
  return {
    provider: str(settings?.provider),
    model: str(settings?.resolved) ?? str(settings?.requested) ?? str(params.model),
  };
}

/**
 * The next window from what a call tells: the model's own window is final; a
 * window-sized budget (commitTurn, compact, afterTurn) or, lacking any, a
 * per-call budget only ever raises a window not known from the model (every
 * budget is at most the window).
 */
export function nextWindow(
  current: { window: number | undefined; source: "model" | "budget" | undefined },
  fromModel: number | undefined,
  budget: number | undefined,
): { window: number | undefined; source: "model" | "budget" | undefined } {
  if (fromModel) return { window: fromModel, source: "model" };
  if (current.source === "model") return current;
  const b = positive(budget);
  if (b && (current.window === undefined || b > current.window)) return { window: b, source: "budget" };
  return current;
}
