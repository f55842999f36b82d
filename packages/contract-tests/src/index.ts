// The kit (imports vitest, a peer dependency) plus everything from ./fixtures.
export { describeContextEngineContract } from "./kit/describe.js";
export {
  CONTRACT_DOMAINS,
  type ContractDomain,
  type ContractEngineContext,
  type ContractOptions,
  type EngineCapabilities,
} from "./kit/options.js";
export { exampleArguments } from "./kit/tool-args.js";
export * from "./fixtures.js";
