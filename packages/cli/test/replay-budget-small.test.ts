import { describeReplayBudget } from "./helpers/replay-budget.js";

// The small windows, in a file of their own so vitest runs it beside the large ones (replay-budget.test.ts).
describeReplayBudget([6_000, 4_000]);
