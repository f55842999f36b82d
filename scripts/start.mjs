#!/usr/bin/env node
// The main job (`pnpm start`): build what the CLI needs, quietly, then replay the bundled session.
// The build's own output (hundreds of lines, tool warnings) is shown only when the build fails:
// the user asked for the replay, and that is what the terminal shows.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const started = Date.now();
process.stderr.write("Building the packages (the first run takes a minute or two)… ");

const build = spawn("npx", ["turbo", "run", "build", "--filter=@context-engine/cli...", "--output-logs=errors-only"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "0" },
});
const output = [];
build.stdout.on("data", (d) => output.push(d));
build.stderr.on("data", (d) => output.push(d));
build.on("close", (code) => {
  if (code !== 0) {
    process.stderr.write("failed:\n\n");
    process.stderr.write(Buffer.concat(output));
    process.exit(code ?? 1);
  }
  process.stderr.write(`done (${Math.round((Date.now() - started) / 1000)} s)\n\n`);
  const replay = spawn(process.execPath, ["packages/cli/dist/bin.js", "replay", "--demo", ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
  replay.on("close", (status, signal) => process.exit(status ?? (signal ? 130 : 1)));
});
