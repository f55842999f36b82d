import { describeContextEngineContract } from "../src/index.js";
import { MinimalEngine, ReferenceEngine } from "./engines/reference-engine.js";

// A correct engine with every optional part passes the whole kit…
describeContextEngineContract({ name: "reference", createEngine: (ctx) => new ReferenceEngine(ctx) });

// …and so does one that implements only the required members (defaults checked).
describeContextEngineContract({ name: "minimal", createEngine: (ctx) => new MinimalEngine(ctx) });
