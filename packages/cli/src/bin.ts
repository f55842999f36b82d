#!/usr/bin/env node
import { runCli } from "./cli.js";
import { processIO } from "./io.js";

// Set the exit code instead of calling process.exit so pending stdout writes flush.
runCli(process.argv.slice(2), processIO()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`context-engine: internal error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
