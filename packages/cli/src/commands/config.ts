import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseCommandArgs } from "../args.js";
import { EXIT, InputError, UsageError } from "../errors.js";
import { createPalette } from "../format/color.js";
import { CONFIG_HELP } from "../help.js";
import { useColor, type CliIO } from "../io.js";
import { engineSearchPaths } from "../paths.js";

export async function configCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("config", argv, { json: { type: "boolean" } });
  const [sub, ...extra] = positionals;
  if (values.help || sub === "help") {
    io.stdout.write(CONFIG_HELP);
    return EXIT.ok;
  }
  if (sub !== "check") {
    throw new UsageError(sub ? `config: unknown subcommand ${JSON.stringify(sub)}` : "config: missing subcommand", {
      hints: ["Use 'context-engine config check [--config path]'."],
    });
  }
  if (extra.length) throw new UsageError(`config check: unexpected argument ${JSON.stringify(extra[0])}; use --config <path>`);

  const { checkConfig, findConfigFile, formatConfigProblem } = await import("@context-engine/plugin-loader");
  const env = { ...io.env };
  let file: string;
  if (values.config) {
    file = resolve(io.cwd, values.config);
    if (!existsSync(file)) throw new InputError(`no such config file: ${file}`);
  } else {
    const found = findConfigFile({ cwd: io.cwd, env });
    if (!found) {
      if (values.json) io.stdout.write(`${JSON.stringify({ file: null, valid: true, problems: [] }, null, 2)}\n`);
      else io.stdout.write("No config.yaml found (looked in the working directory and $CONTEXT_ENGINE_HOME); the defaults apply.\n");
      return EXIT.ok;
    }
    file = found;
  }
  const problems = await checkConfig(file, { cwd: io.cwd, env, nodeModules: engineSearchPaths(io.cwd) });
  const errors = problems.filter((p) => p.severity === "error");
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ file, valid: errors.length === 0, problems }, null, 2)}\n`);
    return errors.length ? EXIT.config : EXIT.ok;
  }
  const p = createPalette(useColor(io.stdout, io.env) && !values["no-color"]);
  for (const problem of problems) {
    const text = formatConfigProblem(problem);
    io.stdout.write(`${problem.severity === "error" ? p.red("✖") : p.yellow("⚠")} ${text}\n`);
  }
  if (errors.length) {
    io.stdout.write(`\n${p.red(`${file}: ${errors.length} error${errors.length === 1 ? "" : "s"}`)}${problems.length > errors.length ? `, ${problems.length - errors.length} warning(s)` : ""}\n`);
    return EXIT.config;
  }
  io.stdout.write(`${p.green("✔")} ${file} is valid${problems.length ? ` (${problems.length} warning${problems.length === 1 ? "" : "s"})` : ""}\n`);
  return EXIT.ok;
}
