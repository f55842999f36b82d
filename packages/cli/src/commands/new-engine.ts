import { resolve } from "node:path";
import { parseCommandArgs } from "../args.js";
import { EXIT, InputError, UsageError } from "../errors.js";
import { NEW_ENGINE_HELP } from "../help.js";
import type { CliIO } from "../io.js";

export async function newEngineCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("new-engine", argv, { dir: { type: "string" }, description: { type: "string" }, "core-from": { type: "string" }, "kit-from": { type: "string" } });
  if (values.help) {
    io.stdout.write(NEW_ENGINE_HELP);
    return EXIT.ok;
  }
  const [name, ...extra] = positionals;
  if (!name) throw new UsageError("new-engine: missing the engine name", { hints: ["Example: context-engine new-engine my-engine"] });
  if (extra.length) throw new UsageError(`new-engine: unexpected argument ${JSON.stringify(extra[0])}`);
  const { nextSteps, scaffoldEngine, engineNameProblem } = await import("create-context-engine");
  const problem = engineNameProblem(name);
  if (problem) {
    throw new UsageError(`new-engine: ${problem}`, { hints: ['Use lowercase letters, digits, "-" or "_", starting with a letter; not a Node.js core module name or node_modules.'] });
  }
  const directory = resolve(io.cwd, values.dir ?? name);
  try {
    const result = scaffoldEngine({
      directory,
      name,
      ...(values.description ? { description: values.description } : {}),
      ...(values["core-from"] ? { coreFrom: resolve(io.cwd, values["core-from"]) } : {}),
      ...(values["kit-from"] ? { kitFrom: resolve(io.cwd, values["kit-from"]) } : {}),
    });
    io.stdout.write(nextSteps(result, io.cwd));
    return EXIT.ok;
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}
