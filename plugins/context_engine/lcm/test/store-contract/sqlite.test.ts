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
    const others: Array<{ close(): void }> = [];
    const opened = {
      store: openLcmStore({ dataDir: dir, ...options }),
      async reopen() {
        opened.store.close();
        opened.store = openLcmStore({ dataDir: dir, ...options });
        return opened.store;
      },
      async again() {
        const other = openLcmStore({ dataDir: dir, ...options });
        others.push(other);
        return other;
      },
      async dispose() {
        for (const o of others) o.close();
        opened.store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return opened;
  },
});
