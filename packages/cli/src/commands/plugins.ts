import { parseCommandArgs } from "../args.js";
import { EXIT, UsageError } from "../errors.js";
import { createPalette, type Palette } from "../format/color.js";
import type { EngineListing } from "@context-engine/plugin-loader";
import { renderFitTable, terminalWidth, wrapText } from "../format/fit-table.js";
import { PLUGINS_HELP } from "../help.js";
import { useColor, type CliIO } from "../io.js";
import { createCliLogger } from "../logger.js";
import { engineSearchPaths } from "../paths.js";

export async function pluginsCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("plugins", argv, { json: { type: "boolean" } });
  const [sub, name, ...extra] = positionals;
  if (values.help || sub === "help") {
    io.stdout.write(PLUGINS_HELP);
    return EXIT.ok;
  }
  if (sub !== "list" && sub !== "info") {
    throw new UsageError(sub ? `plugins: unknown subcommand ${JSON.stringify(sub)}` : "plugins: missing subcommand", {
      hints: ["Use 'context-engine plugins list' or 'context-engine plugins info <name>'."],
    });
  }
  if (sub === "info" && !name) throw new UsageError("plugins info: missing the engine name", { hints: ["Example: context-engine plugins info lcm"] });
  if ((sub === "list" && name) || extra.length) throw new UsageError(`plugins ${sub}: unexpected argument ${JSON.stringify(sub === "list" ? name : extra[0])}`);

  const { loadConfig, listEngines, selectedEngineName } = await import("@context-engine/plugin-loader");
  const env = { ...io.env };
  const logger = createCliLogger((line) => io.stderr.write(`${line}\n`), values.verbose ? "info" : "error");
  const loaded = await loadConfig({ cwd: io.cwd, env, ...(values.config ? { path: values.config } : {}) });
  // Construct each engine: the only way to tell a working plugin from one that breaks on load.
  const rows = await listEngines({ config: loaded, cwd: io.cwd, env, probe: "construct", nodeModules: engineSearchPaths(io.cwd), logger });
  const p = createPalette(useColor(io.stdout, io.env) && !values["no-color"]);

  if (sub === "list") {
    if (values.json) {
      const problem = activeProblem(rows, selectedEngineName(loaded.config));
      io.stdout.write(`${JSON.stringify({ config: loaded.file, engines: rows, ...(problem ? { problem } : {}) }, null, 2)}\n`);
      return problem ? EXIT.config : EXIT.ok;
    }
    const width = terminalWidth(io.stdout.columns, io.env);
    const fit = (text: string) => wrapText(text, width).join("\n");
    io.stdout.write(engineTable(rows, p, width));
    const where = activeSource(loaded);
    const problem = activeProblem(rows, selectedEngineName(loaded.config));
    if (problem) {
      io.stderr.write(`${fit(`✖ ${problem} (${where}).`).replace(/^✖/, p.red("✖"))}\n`);
      return EXIT.config;
    }
    const active = rows.find((r) => r.active)!;
    io.stdout.write(`\n${fit(`Active: ${active.name} (${where}).`).replace(/^Active: \S+/, `Active: ${p.bold(active.name)}`)}\n`);
    return EXIT.ok;
  }

  const matches = rows.filter((r) => r.name === name);
  if (matches.length === 0) {
    throw new UsageError(`unknown engine ${JSON.stringify(name)}; found: ${[...new Set(rows.map((r) => r.name))].join(", ")}`);
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify(matches.length === 1 ? matches[0] : matches, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const r of matches) {
    const lines = [
      `${p.bold(r.name)}${r.active ? (r.status === "ok" ? p.green(" (active)") : p.red(" (selected, but broken: not active)")) : ""}`,
      `  source:      ${r.source}`,
      `  version:     ${r.version ?? "–"}`,
      `  status:      ${r.status === "ok" ? p.green("ok") : p.red(r.status)}`,
      `  path:        ${r.path ?? "built-in"}`,
      `  description: ${r.description || "–"}`,
      ...Object.entries(r.details ?? {}).map(([k, v]) => `  ${`${k}:`.padEnd(12)} ${v}`),
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  return EXIT.ok;
}

/** Why the engine context.engine selects cannot run, or null when it can. */
function activeProblem(rows: readonly EngineListing[], selected: string): string | null {
  const row = rows.find((r) => r.active);
  if (!row) return `the active engine "${selected}" is not installed`;
  return row.status === "ok" ? null : `the active engine "${row.name}" cannot be loaded: ${row.status}`;
}

/** One row per engine, fitted to the terminal; a broken selected engine is marked ✖, not ●. */
function engineTable(rows: readonly EngineListing[], p: Palette, width: number): string {
  return renderFitTable(
    [{ header: "" }, { header: "engine", max: 24 }, { header: "source" }, { header: "version", max: 12 }, { header: "status", flex: "wrap" }, { header: "description", flex: "cut" }],
    rows.map((r) => {
      const ok = r.status === "ok";
      return [
        r.active ? (ok ? { text: "●", style: p.green } : { text: "✖", style: p.red }) : { text: "" },
        { text: r.name, ...(r.active ? { style: p.bold } : {}) },
        { text: r.source },
        { text: r.version ?? "–" },
        { text: r.status, style: ok ? p.green : p.red },
        { text: r.description },
      ];
    }),
    width,
  );
}

/** Where the active engine was chosen: the line of config.yaml that sets context.engine, or the built-in default. */
function activeSource(loaded: { file: string | null; config: { context?: { engine?: string } }; source: { positionOf(path: readonly PropertyKey[]): { line: number } | null } | null }): string {
  if (loaded.config.context?.engine === undefined) {
    return loaded.file ? `the default: ${loaded.file} does not set context.engine` : "the default: no config.yaml found";
  }
  const at = loaded.source?.positionOf(["context", "engine"]);
  return `context.engine in ${loaded.file ?? "the config"}${at ? `:${at.line}` : ""}`;
}
