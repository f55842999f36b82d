import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLcmStore } from "../../src/store/index.js";
import { storeContract } from "./suite.js";

storeContract({
  name: "sqlite",
  features: { trigram: true, regexNarrowing: true, deferredIndex: true },
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "lcm-contract-"));
    const store = openLcmStore({ dataDir: dir, ...options });
    const others: Array<{ close(): void }> = [];
    return {
      store,
      async again() {
        const other = openLcmStore({ dataDir: dir, ...options });
        others.push(other);
        return other;
      },
      async dispose() {
        for (const o of others) o.close();
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
