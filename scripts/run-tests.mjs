#!/usr/bin/env node
// Runs every package's tests through turbo (one at a time: the machine has 2
// cores and several suites start servers), streams the output, and ends with
// one summary line "N passed, N failed, N skipped" totalled over all packages.
import { spawn } from "node:child_process";

const args = ["turbo", "run", "test", "--concurrency=1", "--continue", ...process.argv.slice(2)];
const child = spawn("npx", args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "0" } });

const totals = { passed: 0, failed: 0, skipped: 0 };
const ansi = /\x1b\[[0-9;]*m/g;
let buffer = "";
function scan(chunk) {
  buffer += chunk.toString("utf8");
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl).replace(ansi, "");
    buffer = buffer.slice(nl + 1);
    // vitest: "      Tests  12 failed | 40 passed | 2 skipped (54)"
    const m = /\bTests\s+(.*)\(\d+\)\s*$/.exec(line);
    if (!m) continue;
    for (const part of m[1].split("|")) {
      const p = /(\d+)\s+(passed|failed|skipped|todo)/.exec(part);
      if (!p) continue;
      const key = p[2] === "todo" ? "skipped" : p[2];
      totals[key] += Number(p[1]);
    }
  }
}
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  scan(d);
});
child.stderr.on("data", (d) => process.stderr.write(d));
child.on("close", (code) => {
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(code ?? 1);
});
