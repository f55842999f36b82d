#!/usr/bin/env node
// Runs every package's tests through turbo (one at a time: the machine has 2
// cores and several suites start servers), streams the output, and ends with
// one summary line "N passed, N failed, N skipped" totalled over all packages,
// after the failures repeated (CI may keep only the tail of a long log).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

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
// A run can also fail with every test passed: an error outside any test (vitest's "Unhandled Errors"), a
// worker that died (a native abort), or a task that is not vitest (a type check); turbo names the task.
const OTHER_FAILURE = /^\s*(Vitest caught \d+ unhandled errors?.*|Error: \[vitest-pool\].*|.*Worker exited unexpectedly.*|Failed:\s+\S+#\S+.*)$/;
function noteFailure(line) {
  const body = line.replace(/^\S+:test:\s?/, "");
  if (awaitingError && !/^\s*([⎯-].*|This might cause.*)?$/.test(body)) {
    awaitingError.error = body.trim().slice(0, 300);
    awaitingError = null;
  }
  if (failures.length >= MAX_FAILURES) return;
  const pkg = /^(\S+):test:/.exec(line)?.[1] ?? "";
  const fail = /^\s*FAIL\s+(.*)$/.exec(body);
  const other = fail ? null : OTHER_FAILURE.exec(body);
  if (!fail && !other) return;
  const failure = { where: `${pkg ? `${pkg}: ` : ""}${(fail ?? other)[1].trim().slice(0, 300)}`, error: "" };
  failures.push(failure);
  // A vitest failure header and its unhandled-errors line are followed by the error; turbo's line is all.
  if (fail || /^\s*Vitest caught/.test(body)) awaitingError = failure;
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
  const summary = `tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
  const listed = failures.length
    ? `failed (${failures.length}${failures.length >= MAX_FAILURES ? "+" : ""}):\n${failures.map((f) => `  ${f.where}${f.error ? `\n    ${f.error}` : ""}`).join("\n")}\n`
    : "";
  if (listed) console.log(`\n${listed}`);
  console.log(`\n${summary}`);
  // CI runs several legs and keeps only the end of its log: each leg's failures go to one file it prints last.
  const file = process.env.CONTEXT_ENGINE_FAILURES_FILE;
  if (file && (listed || code !== 0)) {
    appendFileSync(file, `[Node ${process.version}${process.argv.length > 2 ? ` ${process.argv.slice(2).join(" ")}` : ""}] exit ${code}; ${summary}\n${listed}`);
  }
  if (code === 0 && tasks && tasks.successful < tasks.total) {
    console.log(`turbo ran ${tasks.successful} of ${tasks.total} tasks: the run did not finish`);
    process.exit(1);
  }
  process.exit(code ?? 1);
});
