import { isContextEngine } from "@context-engine/core";
import { engineNameProblem } from "./names.js";
import type { ContextEngine, EngineInitContext, Logger } from "@context-engine/core";

/**
 * What a plugin's `register(ctx)` receives. It is also an `EngineInitContext`
 * (for the plugin's own engine name when known), so `new MyEngine(ctx)` works.
 */
export interface RegistrationContext extends EngineInitContext {
  /** The registering plugin, for messages. */
  readonly pluginName: string;
  /** Offer the engine. Returns false (with a warning) when refused. */
  registerContextEngine(engine: ContextEngine): boolean;
  /** The construction context for an engine of another name (its `engines.<name>` section and data dir). */
  engineContext(name: string): EngineInitContext;
}

/** The single engine slot. The first registration wins; later ones are refused with a warning naming both plugins. */
export class EngineSlot {
  #owner: string | null = null;
  #engine: ContextEngine | null = null;
  readonly warnings: string[] = [];
  constructor(private readonly logger?: Logger) {}

  get engine(): ContextEngine | null {
    return this.#engine;
  }
  get owner(): string | null {
    return this.#owner;
  }

  register(plugin: string, engine: unknown): boolean {
    // "Slot taken" is checked before the type, so a second invalid registration reports the slot.
    if (this.#engine) {
      const offered = isContextEngine(engine) ? ` "${safeName(engine)}"` : "";
      return this.#refuse(
        `plugin "${plugin}" tried to register context engine${offered}, but plugin "${this.#owner}" already registered "${safeName(this.#engine)}"; only one context engine may be registered, the second registration is ignored`,
      );
    }
    if (!isContextEngine(engine)) {
      return this.#refuse(`plugin "${plugin}" tried to register something that is not a context engine (it needs name, updateFromResponse, shouldCompress and compress); ignored`);
    }
    const nameProblem = engineNameProblem(safeName(engine));
    if (nameProblem) return this.#refuse(`plugin "${plugin}" tried to register a context engine with an unusable name: ${nameProblem}; ignored`);
    this.#owner = plugin;
    this.#engine = engine;
    this.logger?.info(`plugin "${plugin}" registered context engine "${safeName(engine)}"`);
    return true;
  }

  #refuse(message: string): false {
    this.warnings.push(message);
    this.logger?.warn(message);
    return false;
  }
}

export function safeName(engine: unknown): string {
  try {
    const name = (engine as { name?: unknown }).name;
    return typeof name === "string" ? name : String(name);
  } catch {
    return "<name getter threw>";
  }
}

export function createRegistrationContext(
  pluginName: string,
  slot: EngineSlot,
  base: EngineInitContext,
  engineContext: (name: string) => EngineInitContext,
): RegistrationContext {
  return {
    ...base,
    pluginName,
    registerContextEngine: (engine: ContextEngine) => slot.register(pluginName, engine),
    engineContext,
  };
}
