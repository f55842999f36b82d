import type { ContextEngine } from "./engine.js";
import type { EngineInitContext } from "./engine-context.js";

/**
 * Builds one engine instance. Hosts call it once per session, so an engine
 * keeps its per-session state (threshold, model, counters, cooldowns,
 * previous summary) on the instance; resources meant to outlive a session
 * (a database, a connection pool) are shared by the engine itself.
 */
export type EngineFactory = (context: EngineInitContext) => ContextEngine;
