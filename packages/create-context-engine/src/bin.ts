#!/usr/bin/env node
// npm create context-engine@latest <directory> [--name <name>] [--description <text>]
import { parseArgs } from "node:util";
import { nextSteps, scaffoldEngine } from "./scaffold.js";

const USAGE =
  "Usage: npm create context-engine@latest <directory> [--name <engine-name>] [--description <text>]\n" +
  "         [--core-from <folder|tarball>] [--kit-from <folder|tarball>]   (local @context-engine/* instead of the registry)\n";

function main(): number {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { name: { type: "string" }, description: { type: "string" }, "core-from": { type: "string" }, "kit-from": { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    process.stderr.write(`create-context-engine: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const directory = parsed.positionals[0];
  if (!directory || parsed.positionals.length > 1) {
    process.stderr.write(`create-context-engine: expected one directory\n${USAGE}`);
    return 2;
  }
  try {
    const result = scaffoldEngine({ directory, ...(parsed.values.name ? { name: parsed.values.name } : {}), ...(parsed.values.description ? { description: parsed.values.description } : {}),
      ...(parsed.values["core-from"] ? { coreFrom: parsed.values["core-from"] } : {}),
      ...(parsed.values["kit-from"] ? { kitFrom: parsed.values["kit-from"] } : {}),
    });
    process.stdout.write(nextSteps(result, process.cwd()));
    return 0;
  } catch (error) {
    process.stderr.write(`create-context-engine: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = main();
