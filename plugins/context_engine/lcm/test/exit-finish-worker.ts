// Run by exit-finish.test.ts: registers exit finishers as LCM's import drain does (one per session), the first of
// which throws, releases one, and leaves the process by `process.exit()`.
import { appendFileSync } from "node:fs";
import { atExit } from "../src/engine/exit-finish.js";

const out = process.env.LCM_EXIT_OUT!;
atExit(() => {
  throw new Error("the first session's store failed at exit");
});
const released = atExit(() => appendFileSync(out, "released\n"));
atExit(() => appendFileSync(out, "second\n"));
atExit(() => appendFileSync(out, "third\n"));
released();
process.exit(0);
