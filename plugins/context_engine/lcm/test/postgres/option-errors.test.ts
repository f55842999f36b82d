import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { silentLogger } from "@context-engine/core";
import { LcmEngine } from "../../src/index.js";
import { StoreHandle } from "../../src/engine/store-handle.js";
import { MAX_POSTGRES_TIMEOUT_MS, PostgresOptionsError, postgresOptionsFromConfig } from "../../src/store/postgres/options.js";
import { POSTGRES_URL } from "./server.js";

/**
 * A PostgreSQL option the driver refuses is the user's setting: the message names the option and never
 * says the server cannot be reached (the words a timeout in the option's name used to trigger).
 */

const TIMEOUTS = ["lockTimeoutMs", "statementTimeoutMs", "idleInTransactionTimeoutMs", "connectTimeoutMs"] as const;
const UNREACHABLE = /cannot be reached|unreachable|is it running/i;

function handleWith(option: string, value: number): StoreHandle {
  const postgres = { url: POSTGRES_URL, schema: "lcm_never_created", [option]: value };
  return new StoreHandle(
    { spec: { kind: "postgres", postgres, redaction: {} } as never, description: { kind: "postgres", location: "127.0.0.1:5432/test", schema: "lcm_never_created" } },
    silentLogger,
    () => [],
  );
}

describe("PostgreSQL option errors are reported as option errors", () => {
  it("a timeout above one day reaching the store: named by option, never as an unreachable server", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TIMEOUTS), fc.integer({ min: MAX_POSTGRES_TIMEOUT_MS + 1, max: Number.MAX_SAFE_INTEGER }), async (option, value) => {
        const handle = handleWith(option, value);
        const error = await handle.open().then(
          () => null,
          (e: unknown) => e as Error,
        );
        await handle.close();
        expect(error?.name).toBe("LcmStoreUnavailableError");
        expect(error!.message).toContain(option);
        expect(error!.message).toMatch(/one day|86400000/);
        expect(error!.message).not.toMatch(UNREACHABLE);
      }),
      { numRuns: 12 },
    );
  });

  it("a configuration section's refused key keeps its kind (PostgresOptionsError) under its configuration name", () => {
    for (const key of ["lock_timeout_ms", "statement_timeout_ms", "idle_in_transaction_timeout_ms", "connect_timeout_ms"]) {
      let caught: unknown;
      try {
        postgresOptionsFromConfig({ url: "postgres://u@h/db", [key]: MAX_POSTGRES_TIMEOUT_MS + 1 });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PostgresOptionsError);
      expect((caught as Error).message).toContain(`engines.lcm.store.${key}:`);
    }
  });

  it("the engine refuses such a timeout by key when it is built, before any connection", () => {
    expect(() => new LcmEngine({ config: { store: POSTGRES_URL, statement_timeout_ms: MAX_POSTGRES_TIMEOUT_MS + 1 } })).toThrow(/statement_timeout_ms/);
  });
});
