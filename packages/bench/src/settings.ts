import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { DEFAULT_PG_URL } from "./round-trips.js";

const sizeList = z
  .string()
  .regex(/^\d+(,\d+)*$/, "a comma-separated list of message counts such as 1000,10000")
  .transform((s) => s.split(",").map(Number))
  .refine((xs) => xs.every((x) => x >= 100) && xs.every((x, i) => i === 0 || x > xs[i - 1]!), "ascending sizes of at least 100");

const EnvSchema = z.object({
  /** Also measure at 1,000,000 messages (about an hour on a small machine). */
  BENCH_1M: z.enum(["0", "1"]).default("0"),
  /** "none": PostgreSQL figures only (with BENCH_HOST_SIZES=none). */
  BENCH_SIZES: z.union([z.literal("none"), sizeList]).optional(),
  BENCH_HOST_SIZES: z.union([z.literal("none"), sizeList]).optional(),
  BENCH_CONTEXT: z.coerce.number().int().min(8_000).default(128_000),
  BENCH_HOST_TURNS: z.coerce.number().int().min(3).default(20),
  BENCH_OUT: z.string().min(1).optional(),
  /** PostgreSQL for LCM's figures beside SQLite's (a schema of its own is created and dropped). */
  BENCH_PG_URL: z.string().regex(/^postgres(ql)?:\/\//, "a postgres:// URL").default(DEFAULT_PG_URL),
  /** Sizes the engine suite also runs on PostgreSQL ("none": not at all). */
  BENCH_PG_SIZES: z.union([z.literal("none"), sizeList]).optional(),
  /** Imported-history sizes the host suite also runs on PostgreSQL ("none": not at all). */
  BENCH_PG_HOST_SIZES: z.union([z.literal("none"), sizeList]).optional(),
  /** "1": leave the run's PostgreSQL schemas in place (their names are printed) to look at what takes the space. */
  BENCH_PG_KEEP: z.enum(["0", "1"]).default("0"),
});

export interface BenchSettings {
  sizes: number[];
  hostSizes: number[];
  contextLength: number;
  hostTurns: number;
  outDir: string;
  pgUrl: string;
  pgSizes: number[];
  pgHostSizes: number[];
  pgKeep: boolean;
}

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The run's settings from the environment; a bad value names the variable and what it expects. */
export function readSettings(env: Record<string, string | undefined>): BenchSettings {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`bench settings: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  const e = parsed.data;
  const sizes = e.BENCH_SIZES === "none" ? [] : (e.BENCH_SIZES ?? [1_000, 10_000, 100_000, ...(e.BENCH_1M === "1" ? [1_000_000] : [])]);
  const hostSizes = e.BENCH_HOST_SIZES === "none" ? [] : (e.BENCH_HOST_SIZES ?? [1_000, 10_000, 100_000]);
  const list = (v: "none" | number[] | undefined, fallback: number[]) => (v === "none" ? [] : (v ?? fallback));
  return {
    sizes,
    hostSizes,
    contextLength: e.BENCH_CONTEXT,
    hostTurns: e.BENCH_HOST_TURNS,
    outDir: e.BENCH_OUT ?? resolve(PACKAGE_DIR, "results"),
    pgUrl: e.BENCH_PG_URL,
    // PostgreSQL grows the conversation turn by turn too: 100k there takes hours on a small machine.
    pgSizes: list(e.BENCH_PG_SIZES, [1_000, 10_000]),
    pgHostSizes: list(e.BENCH_PG_HOST_SIZES, [1_000, 10_000]),
    pgKeep: e.BENCH_PG_KEEP === "1",
  };
}
