import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * RE2 matching on a worker thread, waited for synchronously with a deadline.
 * RE2 is linear in its input, but re2js on 100 kB with a large program still
 * takes a second; a deadline the main thread enforces by terminating the
 * worker is the only bound that no single match can exceed. Progress and
 * match positions are written to shared memory row by row, so the rows done
 * before a deadline keep their results.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { RE2JS } = require(workerData.re2);
let key = null, re = null;
parentPort.on("message", (m) => {
  const sig = new Int32Array(m.shared);
  if (m.ready) { Atomics.store(sig, 0, 1); Atomics.notify(sig, 0); return; }
  try {
    if (key !== m.key) { re = RE2JS.compile(m.pattern, m.flags); key = m.key; }
    for (let i = 0; i < m.texts.length; i++) {
      const mt = re.matcher(m.texts[i]);
      if (mt.find()) { sig[2 + 2 * i] = mt.start(); sig[3 + 2 * i] = mt.end() - mt.start(); } else sig[2 + 2 * i] = -1;
      Atomics.store(sig, 1, i + 1);
    }
  } catch { /* compile errors are reported by the main thread's own compile */ }
  Atomics.store(sig, 0, 1);
  Atomics.notify(sig, 0);
});`;

export interface BatchResult {
  /** Rows matched before the deadline (a prefix of the batch). */
  done: number;
  /** Match of each done row, null for no match. */
  matches: Array<{ index: number; length: number } | null>;
  timedOut: boolean;
}

let worker: Worker | null = null;
/** Set to 1 by the worker once it has loaded re2js. */
let ready: Int32Array | null = null;
/** Longest wait for a new matching thread to start (once per process, and after a deadline stopped one). */
const WORKER_START_MS = 5_000;

function spawn(): void {
  const re2 = createRequire(import.meta.url).resolve("re2js");
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { re2 } });
  w.unref();
  w.on("error", () => {
    if (worker === w) worker = null;
  });
  ready = new Int32Array(new SharedArrayBuffer(8));
  w.postMessage({ shared: ready.buffer, ready: true });
  worker = w;
}

function getWorker(): Worker {
  if (!worker) spawn();
  // Starting the thread and loading re2js is not a match: wait for it outside the call's deadline.
  if (ready && Atomics.load(ready, 0) === 0) Atomics.wait(ready, 0, 0, WORKER_START_MS);
  return worker!;
}

/** Start the matching thread if needed (before a call sets its deadline: starting is not matching). */
export function warmRegexWorker(): void {
  getWorker();
}

/** Match `pattern` against each text until `deadline` (a performance.now() time). */
export function matchBatch(pattern: string, flags: number, texts: readonly string[], deadline: number): BatchResult {
  const sig = new Int32Array(new SharedArrayBuffer(4 * (2 + 2 * texts.length)));
  const w = getWorker();
  w.postMessage({ shared: sig.buffer, key: `${flags}:${pattern}`, pattern, flags, texts });
  while (Atomics.load(sig, 0) === 0) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    Atomics.wait(sig, 0, 0, left);
  }
  const finished = Atomics.load(sig, 0) === 1;
  const done = Atomics.load(sig, 1);
  if (!finished) {
    // The worker is still inside a match: stop it for good; the next batch starts a fresh one.
    void w.terminate();
    // Start the replacement now, so it is ready by the next call (it loads while the caller goes on).
    if (worker === w) spawn();
  }
  const matches: BatchResult["matches"] = [];
  for (let i = 0; i < done; i++) matches.push(sig[2 + 2 * i]! < 0 ? null : { index: sig[2 + 2 * i]!, length: sig[3 + 2 * i]! });
  return { done, matches, timedOut: !finished };
}
