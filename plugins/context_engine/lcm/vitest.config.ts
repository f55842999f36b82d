import { defineConfig } from "vitest/config";
import pg from "pg";

const POSTGRES_URL = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * The engine-level suites (the engine's own tests, the contract kit, tool
 * isolation) run twice from one factory (`test/engine-setup.ts`): on SQLite,
 * and on PostgreSQL with `LCM_TEST_STORE=postgres`. Store-level suites run on
 * both stores through the store contract suite. Without a reachable server the
 * PostgreSQL project is left out, with a notice.
 */
const ENGINE_SUITES = [
  "test/engine.test.ts",
  "test/engine-import.test.ts",
  "test/engine-backlog.test.ts",
  "test/engine-drain.test.ts",
  "test/engine-work-clock.test.ts",
  "test/engine-property.test.ts",
  "test/engine-contract.test.ts",
  "test/engine-schedules.test.ts",
  "test/isolation.test.ts",
  "test/engine-dates.test.ts",
  "test/answer-context.test.ts",
  "test/late-named-turn.test.ts",
];

async function reachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    console.warn(`[lcm] PostgreSQL engine suites SKIPPED: no server at ${POSTGRES_URL} (${error instanceof Error ? error.message : String(error)})`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export default defineConfig(async () => {
  // Generous bounds: CI runs every package's suite at once on two shared cores, where the engine-level property
  // and multi-process suites (10-16 s here under load) have come close to a 20 s bound. A bound is a hang guard,
  // not a speed target (those live in `pnpm bench`).
  const shared = { pool: "forks" as const, testTimeout: 60_000, hookTimeout: 60_000 };
  // The Node 22/24 CI legs check what depends on the Node version (the native SQLite module); the
  // PostgreSQL suites (pure JavaScript driver) run once, on the Node 20 leg.
  const otherLeg = Boolean(process.env.CONTEXT_ENGINE_NODE_MAJOR && process.env.CONTEXT_ENGINE_NODE_MAJOR !== "20");
  const projects = [
    { test: { ...shared, name: "sqlite", include: ["test/**/*.test.ts", "src/**/*.test.ts"], ...(otherLeg ? { exclude: ["test/postgres/**", "node_modules/**"] } : {}) } },
  ];
  if (otherLeg) {
    console.warn(`[lcm] PostgreSQL engine suites not run on the Node ${process.env.CONTEXT_ENGINE_NODE_MAJOR} leg (they run on Node 20)`);
  } else if (await reachable()) {
    projects.push({ test: { ...shared, name: "postgres", include: ENGINE_SUITES, env: { LCM_TEST_STORE: "postgres" } } as (typeof projects)[number]["test"] });
  }
  return { test: { projects } };
});
