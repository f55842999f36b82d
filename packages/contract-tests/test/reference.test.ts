import { describeContextEngineContract } from "../src/index.js";
import { loadRecordedFixtures } from "./recorded-fixtures.js";
import { MinimalEngine, ReferenceEngine } from "./engines/reference-engine.js";

// A correct engine with every optional part passes the whole kit…
describeContextEngineContract({ name: "reference", createEngine: (ctx) => new ReferenceEngine(ctx), extraFixtures: () => loadRecordedFixtures() });

// …and so does one that implements only the required members (defaults checked).
describeContextEngineContract({ name: "minimal", createEngine: (ctx) => new MinimalEngine(ctx) });
