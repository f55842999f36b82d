#!/usr/bin/env node
// Runs every package's tests through turbo (one at a time: the machine has 2
// cores and several suites start servers), streams the output, and ends with
// one summary line "N passed, N failed, N skipped" totalled over all packages,
// after the failures repeated (CI may keep only the tail of a long log).
import { spawn } from "node:child_process";

const args = ["turbo", "run", "test", "--concurrency=1", "--continue", ...process.argv.slice(2)];
const child = spawn("npx", args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "0" } });

const totals = { passed: 0, failed: 0, skipped: 0 };
// turbo's own summary ("Tasks: 39 successful, 41 total"): a run turbo was stopped in can exit 0 with tasks not run.
let tasks = null;
const ansi = /\x1b\[[0-9;]*m/g;
let buffer = "";
// vitest's failure headers (" FAIL  [project] file > suite > test") and the error line after each.
const failures = [];
let awaitingError = null;
const MAX_FAILURES = 40;
function noteFailure(line) {
  const body = line.replace(/^\S+:test:\s?/, "");
  if (awaitingError && !/^[\s⎯-]*$/.test(body)) {
    awaitingError.error = body.trim().slice(0, 300);
    awaitingError = null;
  }
  const fail = /^\s*FAIL\s+(.*)$/.exec(body);
  if (!fail || failures.length >= MAX_FAILURES) return;
  const pkg = /^(\S+):test:/.exec(line)?.[1] ?? "";
  awaitingError = { where: `${pkg ? `${pkg}: ` : ""}${fail[1].trim()}`, error: "" };
  failures.push(awaitingError);
}
function scan(chunk) {
  buffer += chunk.toString("utf8");
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl).replace(ansi, "");
    buffer = buffer.slice(nl + 1);
    noteFailure(line);
    const t = /^\s*Tasks:\s+(\d+) successful, (\d+) total/.exec(line);
    if (t) tasks = { successful: Number(t[1]), total: Number(t[2]) };
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
  if (failures.length) {
    console.log(`\nfailed (${failures.length}${failures.length >= MAX_FAILURES ? "+" : ""}):`);
    for (const f of failures) console.log(`  ${f.where}${f.error ? `\n    ${f.error}` : ""}`);
  }
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  if (code === 0 && tasks && tasks.successful < tasks.total) {
    console.log(`turbo ran ${tasks.successful} of ${tasks.total} tasks: the run did not finish`);
    process.exit(1);
  }
  process.exit(code ?? 1);
});
