import { parseCommandArgs } from "../args.js";
import { EXIT, UsageError } from "../errors.js";
import { createPalette } from "../format/color.js";
import { renderTable } from "../format/table.js";
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

  const { loadConfig, listEngines } = await import("@context-engine/plugin-loader");
  const env = { ...io.env };
  const logger = createCliLogger((line) => io.stderr.write(`${line}\n`), values.verbose ? "info" : "error");
  const loaded = await loadConfig({ cwd: io.cwd, env, ...(values.config ? { path: values.config } : {}) });
  // Construct each engine: the only way to tell a working plugin from one that breaks on load.
  const rows = await listEngines({ config: loaded, cwd: io.cwd, env, probe: "construct", nodeModules: engineSearchPaths(io.cwd), logger });
  const p = createPalette(useColor(io.stdout, io.env) && !values["no-color"]);

  if (sub === "list") {
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ config: loaded.file, engines: rows }, null, 2)}\n`);
      return EXIT.ok;
    }
    const table = renderTable(
      [{ header: "" }, { header: "engine" }, { header: "source" }, { header: "version" }, { header: "status" }, { header: "description" }],
      rows.map((r) => [
        r.active ? (r.status === "ok" ? p.green("●") : p.red("✗")) : " ",
        r.active ? p.bold(r.name) : r.name,
        r.source,
        r.version ?? "–",
        r.status === "ok" ? p.green("ok") : p.red(r.status),
        truncate(r.description, 70),
      ]),
    );
    io.stdout.write(table);
    const selected = rows.find((r) => r.active);
    const where = `context.engine in ${loaded.file ?? "defaults: no config.yaml found"}`;
    // A selected engine that fails to load is not active: the host falls back to the built-in compressor.
    const line = !selected
      ? p.yellow("No engine listed is active")
      : selected.status === "ok"
        ? `Active: ${p.bold(selected.name)}`
        : p.red(`Not active: ${selected.name} is selected but broken (${selected.status}); the host falls back to the built-in compressor`);
    io.stdout.write(`\n${line} (${where}).\n`);
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
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  return EXIT.ok;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
