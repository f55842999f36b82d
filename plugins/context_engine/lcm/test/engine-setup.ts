import type { EngineInitContext } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { tempDir } from "./engine-helpers.js";
import { dropSchema, POSTGRES_URL, randomSchema } from "./postgres/server.js";

/**
 * The store the engine tests run on: SQLite by default, PostgreSQL when
 * `LCM_TEST_STORE=postgres` (the `postgres` vitest project sets it), one
 * fresh schema per engine. The same tests run on both.
 */
export const TEST_STORE: "sqlite" | "postgres" = process.env.LCM_TEST_STORE === "postgres" ? "postgres" : "sqlite";

/** Config keys that put an engine on a fresh store of the tested kind, and how to remove it afterwards. */
export function testStore(): { config: Record<string, unknown>; dataDir: string; cleanup: () => Promise<void> } {
  const t = tempDir();
  if (TEST_STORE === "sqlite") return { config: {}, dataDir: t.dir, cleanup: async () => t.cleanup() };
  const schema = randomSchema();
  return {
    config: { store: POSTGRES_URL, schema, pool_size: 2 },
    dataDir: t.dir,
    cleanup: async () => {
      t.cleanup();
      await dropSchema(schema);
    },
  };
}

/** An engine on a fresh store of the tested kind (`ctx.config` keys are kept). */
export function makeEngine(ctx: EngineInitContext = {}): { engine: LcmEngine; cleanup: () => Promise<void> } {
  const t = testStore();
  const engine = new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, ...ctx, config: { ...t.config, ...ctx.config } });
  return {
    engine,
    cleanup: async () => {
      await engine.close();
      await t.cleanup();
    },
  };
}
