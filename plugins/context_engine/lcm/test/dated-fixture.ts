import type { Message } from "@context-engine/core";
import { asst, user } from "./helpers.js";

/** Five messages, three said in March 2023 and two in July 2023; the March ones hold "paint" and "fence", the July one (seq 3) only "paint", so it ranks last on those words in every store. */
const march = Date.UTC(2023, 2, 10, 12);
const july = Date.UTC(2023, 6, 15, 12);
export const DATED_MESSAGES: Message[] = [
  "paint the fence",
  "more paint for the fence please",
  "I bought paint, the fence is next",
  "we went out to paint the big old barn by the lake with the kids, a long afternoon in the sun",
  "the picnic by the river was lovely",
].map((b, i) => (i % 2 ? asst(b) : user(b)));
export const DATED_TIMES = [march, march + 1000, march + 2000, july, july + 1000];
/** The July message that holds "paint". */
export const JULY_PAINT_SEQ = 3;
