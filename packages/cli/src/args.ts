import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./errors.js";
import { closest } from "./suggest.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  help: { type: "boolean", short: "h" },
  config: { type: "string", short: "c" },
  verbose: { type: "boolean", short: "v" },
  "no-color": { type: "boolean" },
} as const satisfies Options;

type Values<O> = {
  [K in keyof O]?: O[K] extends { type: "boolean" } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

export interface ParsedCommandArgs<O extends Options> {
  values: Values<O & typeof COMMON_OPTIONS>;
  positionals: string[];
}

/**
 * `util.parseArgs` in strict mode, with its errors turned into a UsageError
 * that names the command, so a typo exits 2 with a hint instead of a stack.
 */
export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O, otherOptions: readonly string[] = []): ParsedCommandArgs<O> {
  try {
    const parsed = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values: parsed.values as ParsedCommandArgs<O>["values"], positionals: parsed.positionals };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\. To specify a positional argument.*$/s, "");
    const unknown = /Unknown option '(--?[^']+)'/.exec(message)?.[1];
    const names = [...Object.keys({ ...COMMON_OPTIONS, ...options }), ...otherOptions].map((n) => `--${n}`);
    const guess = unknown?.startsWith("--") ? closest(unknown.split("=")[0]!, names) : undefined;
    throw new UsageError(`${command}: ${message}`, {
      hints: [...(guess ? [`Did you mean ${guess}?`] : []), `Run 'context-engine ${command} --help' for the options.`],
    });
  }
}

/** A positive integer option value, or a UsageError naming the option. */
export function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim().replace(/_/g, "");
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text);
  const value = match ? Number(match[1]) * (match[2]?.toLowerCase() === "k" ? 1000 : match[2]?.toLowerCase() === "m" ? 1_000_000 : 1) : NaN;
  if (!Number.isInteger(value) || value <= 0) {
    throw new UsageError(`--${name}: expected a positive whole number (e.g. 16000 or 16k), got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** `a,b , c` → ["a","b","c"], repeated flags merged, duplicates dropped in order. */
export function commaList(raw: string | string[] | undefined): string[] {
  const parts = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((s) => s.split(","));
  const out: string[] = [];
  for (const p of parts.map((s) => s.trim()).filter(Boolean)) if (!out.includes(p)) out.push(p);
  return out;
}
