import type { EngineInitContext } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { tempDir } from "./engine-helpers.js";

export function makeEngine(ctx: EngineInitContext = {}): { engine: LcmEngine; cleanup: () => void } {
  const t = tempDir();
  const engine = new LcmEngine({ dataDir: t.dir, contextLength: 8_000, ...ctx });
  return {
    engine,
    cleanup: () => {
      engine.close();
      t.cleanup();
    },
  };
}

