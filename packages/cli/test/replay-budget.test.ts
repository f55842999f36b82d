import { describeReplayBudget } from "./helpers/replay-budget.js";

// The large windows; the small ones (where messages get lost and requests overflow) are in replay-budget-small.test.ts.
describeReplayBudget([16_000, 8_000]);
