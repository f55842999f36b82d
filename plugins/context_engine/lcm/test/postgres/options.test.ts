import { describe, expect, it } from "vitest";
import { POSTGRES_CONFIG_KEYS, POSTGRES_TIMEOUT_DEFAULTS, parsePostgresOptions, postgresOptionsFromConfig } from "../../src/store/postgres/options.js";

describe("PostgreSQL store options", () => {
  it("bound lock waits, statements and idle transactions by default", () => {
    const options = parsePostgresOptions({ url: "postgres://u@h/db" });
    expect(options).toMatchObject({ ...POSTGRES_TIMEOUT_DEFAULTS, applicationName: "context-engine-lcm", poolSize: 4, schema: "lcm" });
    expect(options.lockTimeoutMs).toBeGreaterThan(0);
    expect(options.idleInTransactionTimeoutMs).toBeGreaterThan(0);
  });

  it("read the snake_case names of a configuration section, every one of them", () => {
    const section = { url: "postgres://u@h/db", pool_size: 2, schema: "lcm_x", lock_timeout_ms: 1500, statement_timeout_ms: 0, idle_in_transaction_timeout_ms: 5000, connect_timeout_ms: 2000, application_name: "agent-7" };
    expect(Object.keys(section).sort()).toEqual(Object.keys(POSTGRES_CONFIG_KEYS).sort());
    expect(postgresOptionsFromConfig(section)).toEqual({
      url: "postgres://u@h/db",
      poolSize: 2,
      schema: "lcm_x",
      lockTimeoutMs: 1500,
      statementTimeoutMs: 0,
      idleInTransactionTimeoutMs: 5000,
      connectTimeoutMs: 2000,
      applicationName: "agent-7",
      createSchema: true,
    });
  });

  it("name an unknown key or a bad value by its configuration path", () => {
    expect(() => postgresOptionsFromConfig({ url: "postgres://u@h/db", lockTimeout: 5 })).toThrow(/engines\.lcm\.store\.lockTimeout: unknown key \(expected one of url, pool_size/);
    expect(() => postgresOptionsFromConfig({ url: "postgres://u@h/db", lock_timeout_ms: -1 })).toThrow(/engines\.lcm\.store\.lock_timeout_ms: /);
    expect(() => postgresOptionsFromConfig({ url: "postgres://u@h/db", statement_timeout_ms: "60s" })).toThrow(/engines\.lcm\.store\.statement_timeout_ms: /);
    expect(() => postgresOptionsFromConfig(["postgres://u@h/db"])).toThrow(/engines\.lcm\.store: expected a mapping/);
  });
});
