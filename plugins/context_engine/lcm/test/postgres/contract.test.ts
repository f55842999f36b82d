import { describe } from "vitest";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { storeContract } from "../store-contract/suite.js";
import { dropSchema, POSTGRES_URL, postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();

// Skipped, and listed as skipped, only where no server is reachable.
describe.skipIf(!reachable)("PostgreSQL (127.0.0.1:5432)", () => {
  storeContract({
    name: "postgres",
    features: { trigram: true, regexNarrowing: true, deferredIndex: false },
    async open(options = {}) {
      const schema = randomSchema();
      const storeOptions = options.redaction === undefined ? {} : { redaction: options.redaction };
      const connect = () => PostgresLcmStore.open({ url: POSTGRES_URL, schema, poolSize: 2 }, storeOptions);
      const others: PostgresLcmStore[] = [];
      const opened = {
        store: await connect(),
        async reopen() {
          await opened.store.close();
          opened.store = await connect();
          return opened.store;
        },
        async again() {
          const other = await connect();
          others.push(other);
          return other;
        },
        async dispose() {
          for (const o of others) await o.close();
          await opened.store.close();
          await dropSchema(schema);
        },
      };
      return opened;
    },
  });
});
