/**
 * Work finished synchronously when the process exits without closing the engine (`process.exit()`, the
 * event loop running dry while nothing waits for the engine). A background import holds, in memory, the
 * part of a history the first hook did not store; on SQLite (a synchronous driver) an `exit` listener can
 * still store it. Only a process killed outright (a signal, a crash) leaves it to the next list that shows
 * the history. One listener for the process, there only while some engine has such work.
 */
const finishers = new Set<() => void>();

function finishAll(): void {
  for (const finish of [...finishers]) {
    try {
      finish();
    } catch {
      // The process is going: nothing to report to. The pending import's record stays in the store and
      // the next list showing the history resumes it.
    }
  }
}

/** Run `finish` if the process exits before the returned function is called (call it once the work is done). */
export function atExit(finish: () => void): () => void {
  if (finishers.size === 0) process.on("exit", finishAll);
  finishers.add(finish);
  return () => {
    if (!finishers.delete(finish)) return;
    if (finishers.size === 0) process.off("exit", finishAll);
  };
}
