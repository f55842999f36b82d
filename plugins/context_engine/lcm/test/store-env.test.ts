import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LcmEngine } from "../src/index.js";
import { tempDir } from "./engine-helpers.js";

describe("engines.lcm.store_env", () => {
  it("reads the variable from the environment the host gives (ctx.env), not only process.env", async () => {
    const t = tempDir();
    const file = join(t.dir, "from-env.sqlite");
    const name = "LCM_TEST_STORE_ENV_ONLY_IN_CTX";
    delete process.env[name];
    const engine = new LcmEngine({ dataDir: t.dir, env: { [name]: file }, config: { store_env: name } });
    try {
      expect(engine.storeInfo).toMatchObject({ kind: "sqlite", location: file });
      await engine.openStore();
    } finally {
      await engine.close();
      t.cleanup();
    }
  });

  it("says which variable is missing when the given environment lacks it", () => {
    expect(() => new LcmEngine({ env: {}, config: { store_env: "LCM_TEST_UNSET_VARIABLE" } })).toThrow(/LCM_TEST_UNSET_VARIABLE, which is not set/);
  });
});
