import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

/**
 * Runs the redaction pre-screen (a regex over every text) on a second thread,
 * so that during a bulk ingest the screen of the next messages overlaps the
 * SQLite work of the current ones. The store waits for a batch only when it
 * reaches it (synchronously: ingest is synchronous), and screens inline when
 * no thread can be had.
 */

// Plain CommonJS so it runs from a string, whatever loader the host uses for this package.
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const screen = new RegExp(workerData.source, workerData.flags);
const done = new Int32Array(workerData.done);
const port = workerData.port;
port.on("message", ({ ticket, texts }) => {
  const out = new Uint8Array(texts.length);
  for (let i = 0; i < texts.length; i++) out[i] = screen.test(texts[i]) ? 1 : 0;
  port.postMessage({ ticket, out }, [out.buffer]);
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
});
`;

/** A batch takes milliseconds; this long without an answer means the thread is gone (or starved). */
const STALL_MS = 5000;

export class ScreenThread {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #done: Int32Array;
  /** Answers taken off the port so far (the worker counts answers sent in #done). */
  #received = 0;
  #sent = 0;
  #broken = false;

  private constructor(pattern: RegExp) {
    const { port1, port2 } = new MessageChannel();
    this.#done = new Int32Array(new SharedArrayBuffer(4));
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: pattern.source, flags: pattern.flags, done: this.#done.buffer, port: port2 },
      transferList: [port2],
    });
    // Never keeps the host process alive.
    this.#worker.unref();
    this.#port = port1;
    this.#port.unref();
  }

  /** A thread screening with `pattern` (tested with `test`, so no global or sticky flag), or null if none can be started. */
  static start(pattern: RegExp): ScreenThread | null {
    try {
      return new ScreenThread(pattern);
    } catch {
      return null;
    }
  }

  /** Queue a batch; returns the ticket to `take` its results with. */
  submit(texts: readonly string[]): number {
    this.#port.postMessage({ ticket: ++this.#sent, texts });
    return this.#sent;
  }

  /**
   * The results of batch `ticket` (1 = may hold a secret), waiting for them if needed; answers to
   * earlier batches nobody took (an ingest that failed half-way) are dropped. Null if the thread does
   * not answer: then it is not used again and the caller screens inline.
   */
  take(ticket: number): Uint8Array | null {
    if (this.#broken || ticket > this.#sent) return null;
    const deadline = performance.now() + STALL_MS;
    for (;;) {
      const m = receiveMessageOnPort(this.#port);
      if (m) {
        this.#received++;
        const answer = m.message as { ticket: number; out: Uint8Array };
        if (answer.ticket === ticket) return answer.out;
        if (answer.ticket > ticket) return null; // taken out of order: not expected, screen inline
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        this.#broken = true;
        return null;
      }
      // Sleep until the worker finishes another batch.
      Atomics.wait(this.#done, 0, this.#received, left);
    }
  }

  /** Whether the thread stopped answering. */
  get broken(): boolean {
    return this.#broken;
  }

  close(): void {
    this.#port.close();
    void this.#worker.terminate();
  }
}
